"""
Recommend algorithms for a dataset
==================================

Rank the built-in knowledge base's algorithms for scikit-learn's breast-cancer data: the
learned strategy's order, with expected accuracy and expected time (each with its 80 %
interval) and the neighbouring datasets the ranking rests on.
"""

from metarec import Recommender, load_dataset, open_or_builtin
from metarec.recommender.plots import plot_recommendation

ds = load_dataset("sklearn:breast_cancer")
recommender = Recommender().fit(open_or_builtin())
ranking = recommender.recommend(ds.X, ds.y)
frame = ranking.to_frame()
print(frame[["algorithm", "expected_accuracy", "expected_time", "basis"]].head(8))

# %%
# The datasets of the knowledge base closest to this one in metafeature space:
print(ranking.neighbours_frame().head(5))

# %%
# Expected accuracy against expected time, numbered in the recommended order; the step line
# is the Pareto front (no other algorithm is both more accurate and faster).
plot_recommendation(frame, title="breast_cancer: the recommended order")
