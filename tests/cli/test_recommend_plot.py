"""The accuracy-time figure of ``recommend -o``: Pareto front and drawing."""

from __future__ import annotations

import numpy as np
import pandas as pd

from metarec.recommender.plots import pareto_front, plot_recommendation


def test_pareto_front_by_hand():
    accuracy = [0.90, 0.80, 0.95, 0.85, 0.80, np.nan]
    time = [1.0, 0.1, 10.0, 2.0, 0.1, 0.01]
    # 0.85 @ 2 s is beaten by 0.90 @ 1 s; the two equal points (0.80 @ 0.1 s) are both kept;
    # NaN is never on the front
    assert pareto_front(accuracy, time).tolist() == [True, True, True, False, True, False]


def test_plot_marks_order_front_and_spread(tmp_path):
    frame = pd.DataFrame(
        {
            "algorithm": ["a", "b", "c", "d"],
            "rank": [1, 2, 3, 4],
            "expected_accuracy": [0.90, 0.80, 0.95, 0.85],
            "expected_accuracy_low": [0.88, 0.70, 0.93, 0.80],
            "expected_accuracy_high": [0.92, 0.85, 0.97, 0.90],
            "expected_time": [1.0, 0.1, 10.0, 2.0],
        }
    )
    path = tmp_path / "plot.svg"
    fig = plot_recommendation(frame, path=path, title="t")
    ax = fig.axes[0]
    assert ax.get_xscale() == "log"
    labels = [t.get_text() for t in ax.texts]
    assert {"1", "2", "3", "4"} <= set(labels)
    listing = next(t for t in labels if t.startswith("Recommended order"))
    assert " 1. a  *" in listing and " 4. d" in listing and " 4. d  *" not in listing
    front_line = ax.get_lines()[0]
    assert sorted(front_line.get_xdata()) == [0.1, 1.0, 10.0]
    assert any("Pareto front" in t.get_text() for t in ax.get_legend().get_texts())
    assert path.read_text().lstrip().startswith("<?xml")
    # two decades of time: the decades are labelled, the minor ticks are not (they overlap)
    fig.canvas.draw()
    minor = [t.get_text() for t in ax.xaxis.get_minorticklabels() if t.get_text()]
    assert minor == [] and {"0.1", "1", "10"} <= {t.get_text() for t in ax.get_xticklabels()}
    narrow = plot_recommendation(frame.assign(expected_time=[0.004, 0.005, 0.008, 0.006]))
    narrow.canvas.draw()
    axis, (low, high) = narrow.axes[0].xaxis, narrow.axes[0].get_xlim()
    shown = [x for x in axis.get_minorticklocs() if low <= x <= high]  # in view (matplotlib
    labels = {axis.get_minor_formatter()(x, i) for i, x in enumerate(shown)}  # 3.7 lists more)
    assert labels - {""} == {"0.005"}  # the view is 0.0039-0.0083 s: one 2-or-5 tick in it


def test_plot_reads_the_success_rate_the_commands_name(tmp_path):
    """``recommend -o`` draws the table as shown: ``expected_r2`` for regression,
    ``expected_roc_auc`` with ``--metric roc_auc``."""
    frame = pd.DataFrame(
        {
            "algorithm": ["a", "b"],
            "rank": [1, 2],
            "expected_r2": [0.40, 0.30],
            "expected_r2_low": [0.2, 0.1],
            "expected_r2_high": [0.6, 0.5],
            "expected_time": [1.0, 0.1],
        }
    )
    ax = plot_recommendation(frame, path=tmp_path / "r2.png").axes[0]
    assert ax.get_ylabel() == "expected R² (%)"
    assert sorted(ax.get_lines()[0].get_ydata()) == [30.0, 40.0]
    auc = frame.rename(columns=lambda c: c.replace("r2", "roc_auc"))
    ax = plot_recommendation(auc, path=tmp_path / "auc.png").axes[0]
    assert ax.get_ylabel() == "expected roc auc (%)"
