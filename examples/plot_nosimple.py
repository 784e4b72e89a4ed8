"""
NoSimple: an AUC that simple objects cannot inflate
===================================================

Objects that every classifier gets right tell nothing about which classifier is better, yet
they raise every classifier's ROC AUC.  Add more and more of them to a binary evaluation of
three classifiers: the plain AUC climbs towards 1 for all three, NoSimple AUC does not move.
"""

import numpy as np

from metarec.evaluation import nosimple_roc_auc_score, simple_objects_effect
from metarec.evaluation.plots import plot_simple_objects_effect

rng = np.random.default_rng(0)
y = np.repeat([0, 1], 100)
scores = np.column_stack([y * shift + rng.normal(size=y.size) for shift in (0.5, 1.0, 2.0)])
print("NoSimple AUC of the three classifiers:", np.round(nosimple_roc_auc_score(y, scores), 3))

# %%
# Adding up to 2,000 negative objects that every classifier scores far below any positive:
effect = simple_objects_effect(y, scores, [0, 100, 500, 1000, 2000], simple_score=-10.0)
plot_simple_objects_effect(effect, names=["weak", "medium", "strong"])
