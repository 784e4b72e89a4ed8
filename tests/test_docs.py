"""The documentation: the CLI reference is complete and current, docstrings follow numpydoc,
the README stays one page."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import inspect
import re
from pathlib import Path

import click
import pytest

ROOT = Path(__file__).resolve().parents[1]

#: numpydoc checks every public name passes (numpydoc.validate codes).  Every parameter is
#: documented (PR01) and every function that returns something has a Returns section (RT01).
#: Left out: summaries that are noun phrases (SS05), sections metarec does not require
#: everywhere (extended summary ES01, See Also SA01, Examples EX01) and per-parameter text
#: still being written (a type for every parameter PR04, a description for every parameter
#: PR07 and every return value RT03).
CHECKS = {
    "GL02", "GL03", "GL05", "GL06", "GL07", "GL08", "GL09", "GL10",
    "SS01", "SS02", "SS03", "SS04", "SS06",
    "PR01", "PR02", "PR03", "PR05", "PR06", "PR08", "PR09", "PR10",
    "RT01", "RT02", "RT04", "RT05", "YD01", "SA02", "SA03", "SA04",
}  # fmt: skip


def _load(path: Path, name: str):
    spec = importlib.util.spec_from_file_location(name, path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _public_packages() -> list[str]:
    """The packages of the API reference (``PUBLIC`` in docs/conf.py, read without running it)."""
    tree = ast.parse((ROOT / "docs" / "conf.py").read_text())
    for node in tree.body:
        targets = getattr(node, "targets", [getattr(node, "target", None)])
        if any(getattr(target, "id", None) == "PUBLIC" for target in targets):
            return list(ast.literal_eval(node.value))
    raise AssertionError("docs/conf.py defines no PUBLIC")


def test_the_cli_reference_is_current():
    reference = _load(ROOT / "docs" / "_cli_reference.py", "_cli_reference")
    assert reference.PAGE.read_text() == reference.render(), (
        "docs/cli.md is out of date: run python docs/_cli_reference.py"
    )


def test_every_command_and_option_is_in_the_cli_reference():
    from metarec.cli import cli

    reference = _load(ROOT / "docs" / "_cli_reference.py", "_cli_reference")
    page = reference.PAGE.read_text()
    sections = dict(re.findall(r"^#+ `([^`]+)`\n\n```text\n(.*?)\n```", page, flags=re.M | re.S))
    root = cli.make_context("metarec", [], resilient_parsing=True)
    seen = 0
    for path, ctx in reference.walk(cli, root):
        assert path in sections, f"{path} has no section in docs/cli.md"
        for param in ctx.command.params:
            if isinstance(param, click.Option) and not param.hidden:
                for opt in param.opts:
                    assert opt in sections[path], f"{path}: {opt} missing from docs/cli.md"
                    seen += 1
    assert seen > 100 and {"metarec run", "metarec db upgrade"} <= set(sections)


def test_every_public_package_is_in_the_api_reference():
    listed = set(_public_packages())
    packages = {
        f"metarec.{p.name}"
        for p in (ROOT / "metarec").iterdir()
        if p.is_dir() and not p.name.startswith("_") and (p / "__init__.py").exists()
    }
    assert packages <= listed, packages - listed


def _public_objects():
    for package in _public_packages():
        module = importlib.import_module(package)
        for name in module.__all__:
            obj = getattr(module, name)
            if not (inspect.isclass(obj) or inspect.isfunction(obj)):
                continue  # constants are described in the module docstrings
            yield f"{obj.__module__}.{obj.__qualname__}"
            if inspect.isclass(obj):
                for attr, member in vars(obj).items():
                    if attr.startswith("_") or not inspect.isfunction(member):
                        continue
                    yield f"{obj.__module__}.{obj.__qualname__}.{attr}"


@pytest.mark.parametrize("name", sorted(set(_public_objects())))
def test_public_docstrings_follow_numpydoc(name):
    from numpydoc.validate import validate

    errors = [f"{code}: {message}" for code, message in validate(name)["errors"] if code in CHECKS]
    assert not errors, "\n".join(errors)


def _public_callables():
    """Every public class and function of the API reference, by its exported name."""
    for package in _public_packages():
        module = importlib.import_module(package)
        for name in module.__all__:
            obj = getattr(module, name)
            if inspect.isclass(obj) or inspect.isfunction(obj):
                yield f"{package}.{name}", obj


def _documented_defaults(obj):
    """(param, documented default text, code default) of ``obj``'s Parameters section."""
    from numpydoc.docscrape import ClassDoc, FunctionDoc

    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return
    doc = ClassDoc(obj) if inspect.isclass(obj) else FunctionDoc(obj)
    for entry in doc["Parameters"]:
        found = re.search(r"default\s*=\s*(.+)$", entry.type)
        if not found:
            continue
        names = [n.strip() for n in entry.name.split(",")]
        texts = [t.strip().strip("`") for t in found.group(1).split(",")]
        if len(texts) != len(names):  # one default shared by several names
            texts = [found.group(1).strip().strip("`")] * len(names)
        for param, text in zip(names, texts, strict=True):
            if param in signature.parameters:
                yield param, text, signature.parameters[param].default


@pytest.mark.parametrize("where", [where for where, _ in _public_callables()])
def test_documented_defaults_are_the_code_defaults(where):
    package, name = where.rsplit(".", 1)
    obj = getattr(importlib.import_module(package), name)
    problems = []
    for param, text, default in _documented_defaults(obj):
        if default is inspect.Parameter.empty:
            problems.append(f"{where}: {param} has no default")
            continue
        try:
            value = ast.literal_eval(text)
        except (ValueError, SyntaxError):
            value = {"inf": float("inf"), "-inf": -float("inf")}.get(text, text.strip("\"'"))
        if not (value == default or repr(default) == text):
            problems.append(f"{where}({param}): doc {text}, code {default!r}")
    assert not problems, "\n".join(problems)


def test_the_readme_is_one_page_without_hand_typed_counts():
    text = (ROOT / "README.md").read_text()
    assert len(text.encode()) <= 25_000
    assert not re.search(r"\b\d[\d,]* (tests|slow tests)\b", text)


def test_the_readmes_supported_versions_are_pyprojects_lower_bounds():
    """Every version the README's "Supported versions" names is the lower bound that
    pyproject.toml declares (the one CI installs in its lowest-versions stage)."""
    bounds = dict(
        re.findall(
            r'"([A-Za-z0-9_.-]+)(?:\[[^\]]*\])?>=([\d.]+)"', (ROOT / "pyproject.toml").read_text()
        )
    )
    bounds = {name.lower(): version for name, version in bounds.items()}
    bounds["xgboost"] = bounds["xgboost-cpu"]
    text = (ROOT / "README.md").read_text()
    paragraph = text.split("**Supported versions.**", 1)[1].split("\n\n", 1)[0]
    named = dict(re.findall(r"([A-Za-z][A-Za-z-]*) ≥\s+([\d.]+)", paragraph))
    assert {"scikit-learn", "numpy", "pandas", "SciPy"} <= set(named)
    wrong = {n: (v, bounds.get(n.lower())) for n, v in named.items() if bounds.get(n.lower()) != v}
    assert not wrong, wrong


def _example_rows(text: str) -> tuple[list[list[str]], list[list[str]], list[str]]:
    """The ``metarec recommend sklearn:breast_cancer`` example: the cells of its ranking rows
    (the library column left out: it names the installed version), of its neighbour rows, and
    its explanation."""
    block = text.split("$ metarec recommend sklearn:breast_cancer\n", 1)[1].split("```", 1)[0]
    lines = block.splitlines()
    cells = [[c.strip() for c in line.split("│")] for line in lines if "│" in line]
    ranking = [row[:1] + row[2:] for row in cells if len(row) >= 10 and "==" in row[1]]
    neighbours = [row for row in cells if len(row) == 4]
    explanation = [line for line in lines if line.startswith("Ranked by")]
    return ranking, neighbours, explanation


@pytest.mark.slow
def test_the_recommend_example_is_what_the_command_prints():
    from click.testing import CliRunner

    from metarec.cli import cli

    result = CliRunner().invoke(
        cli, ["recommend", "sklearn:breast_cancer"], env={"COLUMNS": "250"}, catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    ranking, neighbours, explanation = _example_rows(
        "$ metarec recommend sklearn:breast_cancer\n" + result.output
    )
    assert len(ranking) == 23 and len(neighbours) == 10 and len(explanation) == 1
    for page in ("README.md", "docs/getting-started.md"):
        shown, shown_neighbours, shown_explanation = _example_rows((ROOT / page).read_text())
        assert len(shown) == 5, page
        # the example shows the first rows as printed: copy them again when the ranking changes
        assert shown == ranking[: len(shown)], page
        assert shown_neighbours == neighbours, page
        assert shown_explanation == explanation, page
