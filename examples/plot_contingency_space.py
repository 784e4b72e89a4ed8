"""
Metrics in the contingency space
================================

Every confusion-matrix metric is a surface over (true-negative rate, true-positive rate).
When the classes are imbalanced, most metrics' surfaces change shape; Tau does not
(Amin, Ahmadzadeh & Angryk).  The imbalance sensitivity IS(r) measures how much a surface
moves between ratio 1 and ratio r.
"""

from metarec.evaluation import imbalance_sensitivity
from metarec.evaluation.plots import plot_metric_surfaces

for name in ("accuracy", "f1", "heidke", "tau"):
    print(f"IS(8) of {name}: {float(imbalance_sensitivity(name, 8.0)):.3f}")

# %%
# The surfaces at ratio 1 and ratio 5:
plot_metric_surfaces(("accuracy", "f1", "heidke", "tau"), ratios=(1.0, 5.0), resolution=60)
