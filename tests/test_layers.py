"""The shape of the house: metarec's import layers, no import cycles, no private imports
across subpackages, no overlong functions.

Every import counts: at module level, inside functions and under ``TYPE_CHECKING`` (a
cycle through a function-level import is still a cycle, it only fails later).  The layers,
top to bottom::

    cli > _commands > automl > recommender > {benchmark, storage, ingest} > execution
        > {algorithms, metafeatures} > {data, evaluation} > the ground (exceptions, _text, ...)

A module imports its own subpackage or a lower layer, never a higher one; the packages of
one layer do not import each other.  A subpackage is used from outside only through its
public names (its ``__init__``), never through a private ``_module``.  The checks read the
source with :mod:`ast` (nothing is imported), so they also see imports that never run.
"""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "metarec"

#: Layer of each subpackage (higher imports lower); modules directly in metarec/ are the
#: ground (0) except the command line.
LAYERS = {
    "__main__": 9,
    "cli": 8,
    "_commands": 7,
    "automl": 6,
    "recommender": 5,
    "benchmark": 4,
    "storage": 4,
    "ingest": 4,
    "execution": 3,
    "algorithms": 2,
    "metafeatures": 2,
    "data": 1,
    "evaluation": 1,
}
#: Functions allowed beyond :data:`MAX_FUNCTION_LINES`, each justified on the development
#: page (docs/development.md, "Long functions").
LONG_FUNCTIONS = {"metarec.execution._pool:_schedule"}
MAX_FUNCTION_LINES = 100


def _modules(root: Path = PACKAGE) -> dict[str, Path]:
    """Every module of the package by dotted name (the migration scripts left out: alembic
    runs them, and they import frozen copies only)."""
    out = {}
    for path in root.rglob("*.py"):
        if "migrations" in path.relative_to(root).parts:
            continue
        parts = path.relative_to(root.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[name] = path
    return out


def _targets(module: str, path: Path, node, modules) -> list[str]:
    """The metarec modules an import statement reads (the deepest module named)."""
    if isinstance(node, ast.Import):
        names = [alias.name for alias in node.names]
    else:
        base = node.module or ""
        if node.level:
            package = module if path.name == "__init__.py" else module.rpartition(".")[0]
            parts = package.split(".")
            parts = parts[: len(parts) - node.level + 1]
            base = ".".join([*parts, base] if base else parts)
        names = [f"{base}.{alias.name}" for alias in node.names]
        names = [n if n in modules else base for n in names]
    out = []
    for name in names:
        while name not in modules and "." in name:
            name = name.rpartition(".")[0]
        if name in modules and name != module and name.startswith("metarec"):
            out.append(name)
    return out


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """``module -> modules it imports`` over every import statement of the package."""
    modules = _modules(root)
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                graph[module].update(_targets(module, path, node, modules))
        graph.setdefault(module, set())
    return dict(graph)


def subpackage(module: str) -> str:
    """``metarec.automl._search`` -> ``automl``; ``metarec.exceptions`` -> ``exceptions``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer(module: str, modules) -> int:
    name = subpackage(module)
    return LAYERS.get(name, 0)


def private_across(graph) -> list[tuple[str, str]]:
    """Imports of a private module (a ``_name`` below a subpackage) from outside it."""
    bad = []
    for source, targets in graph.items():
        for target in targets:
            inner = target.split(".")[2:]
            if subpackage(source) != subpackage(target) and any(p.startswith("_") for p in inner):
                bad.append((source, target))
    return sorted(bad)


def upward(graph) -> list[tuple[str, str]]:
    """Imports of a higher layer, or of another package of the same layer."""
    bad = []
    for source, targets in graph.items():
        for target in targets:
            if subpackage(source) == subpackage(target):
                continue
            low, high = layer(source, graph), layer(target, graph)
            if high > low or (high == low and high > 0):
                bad.append((source, target))
    return sorted(bad)


def cycles(graph) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph.get(start, ()))))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def long_functions(root: Path = PACKAGE) -> list[tuple[str, int]]:
    """``module:qualified name`` and length of every function longer than the limit."""
    out = []
    for module, path in _modules(root).items():
        tree = ast.parse(path.read_text(), str(path))
        stack = [(tree, "")]
        while stack:
            node, prefix = stack.pop()
            for child in ast.iter_child_nodes(node):
                if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                    name = f"{prefix}{child.name}"
                    if not isinstance(child, ast.ClassDef):
                        # from ``def`` to the last line, docstring included (a command's
                        # option decorators are its declaration, not its body)
                        length = child.end_lineno - child.lineno + 1
                        if length > MAX_FUNCTION_LINES:
                            out.append((f"{module}:{name}", length))
                    stack.append((child, f"{name}."))
                else:
                    stack.append((child, prefix))
    return sorted(out)


#: Libraries whose private names (a dotted part or a name starting with ``_``) metarec never
#: uses: they change without notice between the versions pyproject.toml allows.
PUBLIC_ONLY = ("sklearn", "click", "pandas")
#: Their modules without an underscore that are internal all the same (pandas documents
#: ``pandas.api`` and the top-level names as its public API).
INTERNAL = ("pandas.core", "pandas.io.common", "pandas.compat")


def library_private_names(root: Path = PACKAGE) -> list[tuple[str, str]]:
    """``(module, dotted name)`` of every private name of :data:`PUBLIC_ONLY` a module
    imports (``from sklearn.utils._x import y``, ``from pandas.io.common import _z``) or
    reaches by attribute (``click.decorators._param_memo``, ``pd.core``'s private parts)."""

    def private(dotted: str) -> bool:
        parts = dotted.split(".")
        internal = any(dotted == m or dotted.startswith(f"{m}.") for m in INTERNAL)
        return parts[0] in PUBLIC_ONLY and (
            internal or any(p.startswith("_") and not p.startswith("__") for p in parts[1:])
        )

    out = []
    for module, path in _modules(root).items():
        tree = ast.parse(path.read_text(), str(path))
        aliases = {}  # local name -> library module (import pandas as pd)
        for node in ast.walk(tree):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    aliases[alias.asname or alias.name.split(".")[0]] = (
                        alias.name if alias.asname else alias.name.split(".")[0]
                    )
                    if private(alias.name):
                        out.append((module, alias.name))
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                for alias in node.names:
                    if private(f"{node.module}.{alias.name}"):
                        out.append((module, f"{node.module}.{alias.name}"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Attribute):
                chain, base = [node.attr], node.value
                while isinstance(base, ast.Attribute):
                    chain.append(base.attr)
                    base = base.value
                if isinstance(base, ast.Name) and base.id in aliases:
                    dotted = ".".join([aliases[base.id], *reversed(chain)])
                    if private(dotted) and (module, dotted) not in out:
                        out.append((module, dotted))
    return sorted(set(out))


def test_no_private_name_of_scikit_learn_click_or_pandas_is_used():
    found = library_private_names()
    assert not found, "private library names:\n" + "\n".join(f"{m}: {n}" for m, n in found)


def test_the_library_check_finds_private_imports_and_attributes(tmp_path, toy):
    toy["data/_load.py"] = (
        "import click\nimport pandas as pd\n"
        "from sklearn.utils._available_if import available_if\n"
        "from sklearn.utils.metaestimators import available_if as fine, _private\n"
        "from pandas.io.common import get_handle\n"
        "def f(x):\n    click.decorators._param_memo(x, 1)\n    return pd.DataFrame.__name__\n"
    )
    assert library_private_names(_package(tmp_path, toy)) == [
        ("metarec.data._load", "click.decorators._param_memo"),
        ("metarec.data._load", "pandas.io.common.get_handle"),
        ("metarec.data._load", "sklearn.utils._available_if.available_if"),
        ("metarec.data._load", "sklearn.utils.metaestimators._private"),
    ]


def test_no_module_imports_upward_or_a_sibling_package():
    bad = upward(import_graph())
    assert not bad, "imports against the layers:\n" + "\n".join(f"{a} -> {b}" for a, b in bad)


def test_no_import_cycles_between_modules():
    found = cycles(import_graph())
    assert not found, "import cycles:\n" + "\n".join(" <-> ".join(c) for c in found)


def test_no_private_module_is_imported_from_another_subpackage():
    bad = private_across(import_graph())
    assert not bad, "private imports:\n" + "\n".join(f"{a} -> {b}" for a, b in bad)


def test_no_function_is_longer_than_a_page():
    found = [(name, n) for name, n in long_functions() if name not in LONG_FUNCTIONS]
    assert not found, "\n".join(f"{name}: {n} lines" for name, n in found)


def test_every_long_function_allowed_is_justified_on_the_development_page():
    page = (ROOT / "docs" / "development.md").read_text()
    for name in LONG_FUNCTIONS:
        assert name.rpartition(":")[2].rpartition(".")[2] in page, name


# ------------------------------------------------------------------ the checks themselves
def _package(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "metarec"
    for relative, text in files.items():
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return root


@pytest.fixture
def toy(tmp_path):
    """A small package shaped like metarec, within the layers."""
    return {
        "__init__.py": "",
        "exceptions.py": "",
        "data/__init__.py": "from metarec.data._load import load\n",
        "data/_load.py": "from metarec.exceptions import *\n",
        "recommender/__init__.py": "from metarec.recommender._rank import rank\n",
        "recommender/_rank.py": "def rank():\n    from metarec.data import load\n",
        "automl/__init__.py": "from . import _search\n",
        "automl/_search.py": "from ..recommender import rank\n",
    }


def test_the_checks_pass_a_package_within_the_rules(tmp_path, toy):
    graph = import_graph(_package(tmp_path, toy))
    assert graph["metarec.automl._search"] == {"metarec.recommender"}
    assert graph["metarec.recommender._rank"] == {"metarec.data"}
    assert upward(graph) == private_across(graph) == cycles(graph) == []


def test_the_checks_find_an_upward_import_inside_a_function(tmp_path, toy):
    toy["data/_load.py"] = "def load():\n    from metarec.recommender import rank\n"
    graph = import_graph(_package(tmp_path, toy))
    assert upward(graph) == [("metarec.data._load", "metarec.recommender")]
    # and with it a cycle of packages: recommender -> data -> recommender
    assert ["metarec.data", "metarec.data._load", "metarec.recommender",
            "metarec.recommender._rank"] in cycles(graph)  # fmt: skip


def test_the_checks_find_a_cycle_through_type_checking(tmp_path, toy):
    toy["recommender/_cache.py"] = (
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n"
        "    from metarec.recommender._rank import rank\n"
    )
    toy["recommender/_rank.py"] = "from metarec.recommender import _cache\n"
    graph = import_graph(_package(tmp_path, toy))
    assert cycles(graph) == [["metarec.recommender._cache", "metarec.recommender._rank"]]


def test_the_checks_find_a_private_import_and_a_sibling_import(tmp_path, toy):
    toy["storage/__init__.py"] = ""
    toy["benchmark/__init__.py"] = "from metarec.storage import KB\n"
    toy["automl/_search.py"] = "from metarec.recommender._rank import rank\n"
    graph = import_graph(_package(tmp_path, toy))
    assert private_across(graph) == [("metarec.automl._search", "metarec.recommender._rank")]
    assert upward(graph) == [("metarec.benchmark", "metarec.storage")]


def test_the_long_function_check_counts_the_docstring_not_the_decorators(tmp_path, toy):
    body = "\n".join(f"    x{i} = {i}" for i in range(99))
    toy["data/_load.py"] = f'@staticmethod\ndef load():\n    """Doc."""\n{body}\n'
    root = _package(tmp_path, toy)
    assert long_functions(root) == [("metarec.data._load:load", 1 + 1 + 99)]
