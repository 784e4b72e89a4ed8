"""
From a ranking to a fitted model
================================

:class:`metarec.AutoClassifier` asks the recommender what to try first, evaluates the
algorithms on the data in that order (5-fold CV on worker processes) within a wall-clock
budget, re-plans after each result and refits the best one on every row.  Here with a
15-second budget on scikit-learn's wine data, without storing the folds.
"""

from metarec import AutoClassifier, load_dataset

ds = load_dataset("sklearn:wine")
auto = AutoClassifier(15, random_state=0, store=False).fit(ds.X, ds.y)
print("best:", auto.best_algorithm_)
print(auto.leaderboard_[["algorithm", "cv_score", "cv_sd", "fit_time", "status"]].head(8))

# %%
# The best CV score found so far against the time spent:
from metarec.automl.plots import plot_search  # noqa: E402

plot_search(auto.search_)
