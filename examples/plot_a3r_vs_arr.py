"""
A3R against ARR
===============

Both combine a success-rate ratio with a time ratio.  ARR divides by
``1 + AccD * log10(RT)``, which has a pole and turns negative once an algorithm is slow
enough; A3R divides by the n-th root of the time ratio and decreases monotonically, so a
slower algorithm never scores better for being slower (Abdulrahman et al., 2018).
"""

from metarec.evaluation import a3r, arr

# %%
# Two algorithms of equal accuracy, the first 100 times slower than the second:
print("A3R (n = 8):", round(float(a3r(0.9, 0.9, 100.0, 1.0, n=8)), 4))
print("ARR (AccD = 0.3):", round(float(arr(0.9, 0.9, 100.0, 1.0, acc_d=0.3)), 4))

# %%
# The whole picture, for a range of time ratios:
from metarec.evaluation.plots import plot_a3r_vs_arr  # noqa: E402

plot_a3r_vs_arr()
