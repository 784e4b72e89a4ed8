"""Sphinx configuration: ``sphinx-build -W -b html docs docs/_build/html`` builds the site.

The API reference is generated here, before the build, from each public package's
``__all__`` (``docs/api/`` is not stored); the CLI reference (``docs/cli.md``) is written by
``python docs/_cli_reference.py`` and a test checks that it is up to date.
"""

from __future__ import annotations

import importlib
import os
import re
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))
os.environ.setdefault("MPLBACKEND", "Agg")
# the gallery runs on the built-in knowledge base, whatever the builder's own one holds: a
# data directory of the build's own (kept between builds, so the built-in KB is made once)
os.environ["METAREC_HOME"] = str(HERE / "_build" / "metarec-home")
os.environ.pop("METAREC_DB", None)

import metarec  # noqa: E402

project = "metarec"
author = "the metarec developers"
copyright = "the metarec developers"
release = version = metarec.__version__

extensions = [
    "myst_parser",
    "sphinx.ext.autodoc",
    "sphinx.ext.autosummary",
    "sphinx.ext.intersphinx",
    "numpydoc",
    "sphinx_gallery.gen_gallery",
]
source_suffix = {".rst": "restructuredtext", ".md": "markdown"}
exclude_patterns = ["_build", "**/README.md"]
myst_heading_anchors = 3
myst_enable_extensions = ["colon_fence"]
suppress_warnings = ["myst.xref_missing"]  # links inside a page to a heading of another page

html_theme = "pydata_sphinx_theme"
html_title = f"metarec {release}"
html_theme_options = {"navigation_depth": 2, "show_toc_level": 2}

autosummary_generate = True
autodoc_default_options = {"members": False, "inherited-members": False}
#: ``Problem`` is a ``str``: numpydoc would list every text method of Python's
numpydoc_show_inherited_class_members = {"metarec.storage.Problem": False}
numpydoc_show_class_members = False
numpydoc_class_members_toctree = False

intersphinx_mapping = {}

sphinx_gallery_conf = {
    "examples_dirs": str(HERE.parent / "examples"),
    "gallery_dirs": "auto_examples",
    "filename_pattern": r"/plot_",
    "abort_on_example_error": True,
    "only_warn_on_example_error": False,
    "download_all_examples": False,
    "remove_config_comments": True,
}

#: The packages whose ``__all__`` make the API reference, with a line saying what each holds.
PUBLIC = {
    "metarec.data": "Loading a dataset from a file, a DataFrame, OpenML or scikit-learn.",
    "metarec.metafeatures": "Metafeatures of a dataset.",
    "metarec.storage": "The knowledge base.",
    "metarec.recommender": "Rankings of algorithms and their evaluation.",
    "metarec.automl": "From a ranking to a fitted model within a time budget.",
    "metarec.benchmark": "Filling the knowledge base with metarec's own runs (the portfolio's "
    "names are ``metarec.algorithms``'s, importable from here too).",
    "metarec.execution": "Running jobs: folds, the warm worker pool, Dask, the run store.",
    "metarec.algorithms": "The algorithms: portfolios, configurations, the pipelines they run in.",
    "metarec.ingest": "Filling the knowledge base from OpenML and ASlib.",
    "metarec.evaluation": "Metrics, protocols and the evaluation science.",
    "metarec.evaluation.plots": "Figures of the evaluation science.",
    "metarec.recommender.plots": "Figures of rankings and their evaluation.",
    "metarec.automl.plots": "Figures of a search.",
    "metarec.exceptions": "The exceptions metarec raises.",
}


def _listed_elsewhere(package: str, obj) -> bool:
    """Whether ``obj`` is another public package's name, re-exported by ``package``."""
    home = getattr(obj, "__module__", None) or ""

    def within(where: str) -> bool:
        return home == where or home.startswith(f"{where}.")

    return not within(package) and any(within(other) for other in PUBLIC if other != package)


def _write_api_reference() -> None:
    folder = HERE / "api"
    folder.mkdir(exist_ok=True)
    top = ", ".join(f"``{n}``" for n in metarec.__all__ if not n.startswith("__"))
    lines = [
        "API reference",
        "=============",
        "",
        "Every public name, by package (each package's ``__all__``).  The top-level package",
        f"re-exports the names most programs need: {top}.",
        "",
    ]
    for name, summary in PUBLIC.items():
        module = importlib.import_module(name)
        lines += [
            f"``{name}``",
            "-" * (len(name) + 4),
            "",
            summary,
            "",
            f".. currentmodule:: {name}",
            "",
            ".. autosummary::",
            "   :toctree: generated/",
            "",
        ]
        for public in module.__all__:
            if public.startswith("__") or _listed_elsewhere(name, getattr(module, public)):
                continue
            lines.append(f"   {public}")
        lines.append("")
    (folder / "index.rst").write_text("\n".join(lines))


_write_api_reference()


def _plain_sklearn_refs(app, what, name, obj, options, lines) -> None:
    """Inherited scikit-learn docstrings refer to labels of scikit-learn's own site."""
    for i, line in enumerate(lines):
        lines[i] = re.sub(r":ref:`([^`<]*?)\s*<[^`>]+>`", r"\1", line)  # :ref:`text <label>`
        lines[i] = re.sub(r":ref:`([^`<]+)`", r"``\1``", lines[i])  # :ref:`label`


def _skip_str_methods(app, what, name, obj, skip, options):
    """``Problem`` is a ``str``: its text methods are Python's, not metarec's to document."""
    if getattr(str, name, None) is obj or getattr(obj, "__objclass__", None) is str:
        return True
    return None


def setup(app) -> None:
    app.connect("autodoc-process-docstring", _plain_sklearn_refs)
    app.connect("autodoc-skip-member", _skip_str_methods)
