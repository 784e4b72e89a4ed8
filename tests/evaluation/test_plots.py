import sys

import numpy as np
import pytest

from metarec.evaluation import learning_path
from metarec.exceptions import InvalidInputError


@pytest.fixture(scope="module")
def plots():
    from metarec.evaluation import plots

    return plots


def test_importing_evaluation_does_not_load_matplotlib():
    import subprocess

    code = "import sys, metarec.evaluation; print('matplotlib' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "False"


def test_surfaces_figure_png(plots, tmp_path):
    fig = plots.plot_metric_surfaces(("accuracy", "tau"), ratios=(1, 4), resolution=20)
    assert len(fig.axes) == 5  # 2 x 2 panels + colour bar
    assert fig.axes[0].get_title() == "accuracy"
    out = plots.save_figure(fig, tmp_path / "s.png")
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_sensitivity_figure_svg(plots, tmp_path):
    fig = plots.plot_imbalance_sensitivity(("f1", "tau"), ratios=[1, 2, 4], resolution=20)
    ax = fig.axes[0]
    assert ax.get_xlabel().startswith("imbalance ratio")
    assert [t.get_text() for t in ax.get_legend().get_texts()] == ["F1 score", "Tau"]
    out = plots.save_figure(fig, tmp_path / "is.svg")
    assert "<svg" in out.read_text()[:500]


def test_learning_path_and_a3r_figures(plots, tmp_path):
    path = learning_path([[[5, 5], [8, 2]], [[8, 2], [1, 9]]], metric="f1")
    fig = plots.plot_learning_path(path, metric="f1", resolution=20)
    assert "learning path" in fig.axes[0].get_legend().get_texts()[0].get_text()
    plots.save_figure(fig, tmp_path / "p.png")
    fig = plots.plot_a3r_vs_arr(points=101)
    assert len(fig.axes) == 2
    plots.save_figure(fig, tmp_path / "a.png")
    assert (tmp_path / "a.png").stat().st_size > 1000


def test_bad_figure_input(plots, tmp_path):
    fig = plots.plot_a3r_vs_arr(points=11)
    with pytest.raises(InvalidInputError, match=r"\.png or \.svg"):
        plots.save_figure(fig, tmp_path / "x.pdf")
    with pytest.raises(InvalidInputError, match="does not exist"):
        plots.save_figure(fig, tmp_path / "missing" / "x.png")
    with pytest.raises(InvalidInputError, match="empty"):
        plots.plot_metric_surfaces(())
    with pytest.raises(InvalidInputError, match="shape"):
        plots.plot_learning_path(np.zeros((3, 3)))


def test_simple_objects_figure(plots, tmp_path):
    from metarec.evaluation import simple_objects_effect

    effect = simple_objects_effect(
        [0, 0, 0, 1, 1], np.array([[1, 100], [2, 150], [110, 2], [6, 130], [120, 3]]), [0, 10, 100]
    )
    fig = plots.plot_simple_objects_effect(effect, names=["good", "poor"])
    texts = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert texts[0] == "good: ROC AUC" and texts[3] == "poor: NoSimple ROC AUC"
    plots.save_figure(fig, tmp_path / "n.png")
    with pytest.raises(InvalidInputError, match="names"):
        plots.plot_simple_objects_effect(effect, names=["one"])
