"""The shape of the house: metarec's import layers, no import cycles, no private imports
across subpackages, no overlong functions.

Every import counts: at module level, inside functions and under ``TYPE_CHECKING`` (a
cycle through a function-level import is still a cycle, it only fails later).  The layers,
top to bottom::

    cli > _commands > automl > recommender > {benchmark, storage, ingest} > execution
        > {algorithms, metafeatures} > {data, evaluation} > the ground (exceptions, _text, ...)

A module imports its own subpackage or a lower layer, never a higher one; the packages of
one layer do not import each other; a subpackage missing from the table fails (it would
otherwise count as the ground).  A subpackage is used from outside only through its public
names (its ``__init__``), never through a private ``_module``.  The checks read the source
with :mod:`ast` (nothing is imported), so they also see imports that never run, and the
imports made by name: a string that names a metarec module (``importlib.import_module``'s
argument, the lazy name tables of ``__init__`` files and of the command line, a
``"module:Class"`` entry) imports it, and the ``estimator`` of every entry of the shipped
portfolio files is imported by the catalogue that reads them.  The scripts of
``benchmarks/`` use only metarec's public names.
"""

from __future__ import annotations

import ast
import json
import re
from collections import defaultdict
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "metarec"

#: Layer of each subpackage (higher imports lower); modules directly in metarec/ are the
#: ground (0) except the command line.  Every subpackage is in the table.
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
#: The package's own ``__init__``: its names are imported from every layer when first used,
#: and nothing imports it.
FACADE = 10
#: Private modules of another subpackage a module may name: the command table names each
#: command's module of the command line's own private package, loaded when it runs.
PRIVATE_ALLOWED = {("cli", "_commands")}
#: The module that reads the shipped portfolio files (``metarec/_resources/*.json``): a
#: ``"module:Class"`` estimator of metarec there is its import.
CATALOGUE = "metarec.algorithms._catalogue"
#: A string naming a metarec module, or an attribute of one (``"module:Class"``).
MODULE_NAME = re.compile(r"^metarec(\.[A-Za-z_]\w*)+(:[A-Za-z_][\w.]*)?$")
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


def _named(text: str, modules) -> str | None:
    """The metarec module a string names (``"metarec.x._y"``, ``"metarec.x._y:Name"``,
    ``"metarec.x.Name"``), or None: not a name, or none below the package itself."""
    if not MODULE_NAME.match(text):
        return None
    name = text.partition(":")[0]
    while name not in modules and name.count(".") > 1:
        name = name.rpartition(".")[0]
    return name if name in modules and name != "metarec" else None


def _names_imported(tree) -> list[str]:
    """The strings a module imports by: ``import_module``'s literal argument anywhere, and
    every string of a module-level assignment (the lazy tables ``name -> "module"`` or
    ``"module:Class"``).  A string elsewhere (a command line to start, a list of modules for
    another process to load) is no import of this module's."""
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Call) and node.args:
            func = node.func
            name = func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", "")
            first = node.args[0]
            if name == "import_module" and isinstance(first, ast.Constant):
                out.append(str(first.value))
    for statement in tree.body:
        if isinstance(statement, (ast.Assign, ast.AnnAssign)) and statement.value is not None:
            out += [
                n.value
                for n in ast.walk(statement.value)
                if isinstance(n, ast.Constant) and isinstance(n.value, str)
            ]
    return out


def _resource_imports(root: Path, modules) -> set[str]:
    """The metarec modules of the estimators of the shipped portfolio files."""
    out = set()
    for path in sorted((root / "_resources").glob("*.json")):
        document = json.loads(path.read_text())
        entries = document.get("algorithms", []) if isinstance(document, dict) else []
        for entry in entries:
            target = _named(str(entry.get("estimator", "")), modules)
            if target is not None:
                out.add(target)
    return out


def import_graph(root: Path = PACKAGE) -> dict[str, set[str]]:
    """``module -> modules it imports``: every import statement of the package, every string
    that names a metarec module, and the shipped portfolios' estimators (the catalogue's)."""
    modules = _modules(root)
    graph: dict[str, set[str]] = defaultdict(set)
    for module, path in modules.items():
        tree = ast.parse(path.read_text(), str(path))
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)):
                graph[module].update(_targets(module, path, node, modules))
        for text in _names_imported(tree):
            target = _named(text, modules)
            if target is not None and target != module:
                graph[module].add(target)
        graph.setdefault(module, set())
    resources = _resource_imports(root, modules)
    if resources:
        assert CATALOGUE in modules, f"{CATALOGUE} reads the portfolio files: not found"
        graph[CATALOGUE].update(resources - {CATALOGUE})
    return dict(graph)


def subpackages(root: Path = PACKAGE) -> set[str]:
    """The subpackages of the package: its folders with an ``__init__.py``."""
    return {p.name for p in root.iterdir() if p.is_dir() and (p / "__init__.py").exists()}


def subpackage(module: str) -> str:
    """``metarec.automl._search`` -> ``automl``; ``metarec.exceptions`` -> ``exceptions``."""
    parts = module.split(".")
    return parts[1] if len(parts) > 1 else ""


def layer(module: str, packages: set[str]) -> int:
    """The layer of ``module``: its subpackage's (:data:`LAYERS`), the facade's for the
    package itself, 0 for a module directly in metarec/ (the ground).

    Raises
    ------
    KeyError
        A subpackage missing from :data:`LAYERS`.
    """
    name = subpackage(module)
    if module == "metarec":
        return FACADE
    if name in packages:
        return LAYERS[name]
    return LAYERS.get(name, 0)


def private_across(graph) -> list[tuple[str, str]]:
    """Imports of a private module (a ``_name`` below a subpackage) from outside it."""
    bad = []
    for source, targets in graph.items():
        for target in targets:
            inner = target.split(".")[2:]
            outside = subpackage(source) != subpackage(target)
            allowed = (subpackage(source), subpackage(target)) in PRIVATE_ALLOWED
            if outside and not allowed and any(p.startswith("_") for p in inner):
                bad.append((source, target))
    return sorted(bad)


def upward(graph, root: Path = PACKAGE) -> list[tuple[str, str]]:
    """Imports of a higher layer, or of another package of the same layer."""
    packages = subpackages(root)
    bad = []
    for source, targets in graph.items():
        for target in targets:
            if subpackage(source) == subpackage(target) and "metarec" not in (source, target):
                continue
            low, high = layer(source, packages), layer(target, packages)
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
    return _private_uses(_modules(root), PUBLIC_ONLY, INTERNAL)


def benchmark_private_names(folder: Path = ROOT / "benchmarks") -> list[tuple[str, str]]:
    """``(script, dotted name)`` of every private name of metarec a benchmark script
    imports or reaches by attribute (``metarec.automl._select``, ``metarec._names``): the
    scripts are the library's users, and read only its public names."""
    return _private_uses({p.stem: p for p in sorted(folder.glob("*.py"))}, ("metarec",), ())


def _private_uses(files: dict[str, Path], libraries, internal) -> list[tuple[str, str]]:
    """``(file's name, dotted name)`` of the private names of ``libraries`` the files use."""

    def private(dotted: str) -> bool:
        parts = dotted.split(".")
        inside = any(dotted == m or dotted.startswith(f"{m}.") for m in internal)
        return parts[0] in libraries and (
            inside or any(p.startswith("_") and not p.startswith("__") for p in parts[1:])
        )

    out = []
    for module, path in files.items():
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


def test_the_benchmark_scripts_use_only_public_names_of_metarec():
    found = benchmark_private_names()
    assert not found, "private names of metarec:\n" + "\n".join(f"{m}: {n}" for m, n in found)


def test_every_subpackage_has_a_layer():
    missing = subpackages() - set(LAYERS)
    assert not missing, f"subpackages missing from LAYERS: {sorted(missing)}"


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


def test_a_subpackage_missing_from_the_layers_fails_not_grounds(tmp_path, toy):
    toy["plugins/__init__.py"] = "from metarec.automl import _search\n"
    root = _package(tmp_path, toy)
    assert "plugins" in subpackages(root) - set(LAYERS)
    with pytest.raises(KeyError, match="plugins"):
        upward(import_graph(root), root)


def test_the_checks_see_imports_by_name_and_the_portfolio_files(tmp_path, toy):
    """A module named in a string (importlib's argument, a lazy table, ``module:Class``)
    is imported; a shipped portfolio's estimator is the catalogue's import."""
    toy["data/_load.py"] = (
        "import importlib\n"
        "def load():\n    return importlib.import_module('metarec.recommender._rank')\n"
    )
    toy["algorithms/__init__.py"] = ""
    toy["algorithms/_catalogue.py"] = ""
    toy["metafeatures/__init__.py"] = "TABLE = {'rank': 'metarec.automl._search:search'}\n"
    root = _package(tmp_path, toy)
    (root / "_resources").mkdir()
    (root / "_resources" / "default_portfolio.json").write_text(json.dumps(
        {"algorithms": [{"name": "x", "estimator": "metarec.recommender._rank:Ranker"},
                        {"name": "y", "estimator": "sklearn.dummy:DummyClassifier"}]}
    ))  # fmt: skip
    graph = import_graph(root)
    assert graph["metarec.data._load"] == {"metarec.recommender._rank"}
    assert graph["metarec.metafeatures"] == {"metarec.automl._search"}
    assert graph[CATALOGUE] == {"metarec.recommender._rank"}
    assert ("metarec.data._load", "metarec.recommender._rank") in upward(graph, root)
    assert (CATALOGUE, "metarec.recommender._rank") in private_across(graph)
    assert ("metarec.metafeatures", "metarec.automl._search") in private_across(graph)


def test_the_benchmark_check_finds_private_names_of_metarec(tmp_path):
    (tmp_path / "fine.py").write_text(
        "import metarec\nfrom metarec.automl import tied_with\nfrom _pages import page\n"
        "print(metarec.__version__)\n"
    )
    (tmp_path / "bad.py").write_text(
        "import metarec.recommender\nfrom metarec._names import configuration_base\n"
        "from metarec.automl import _select\nimport metarec.automl._ensemble as ensemble\n"
        "def f():\n    return metarec.recommender._evaluate.gap_closed\n"
    )
    assert benchmark_private_names(tmp_path) == [
        ("bad", "metarec._names.configuration_base"),
        ("bad", "metarec.automl._ensemble"),
        ("bad", "metarec.automl._select"),
        ("bad", "metarec.recommender._evaluate"),
        ("bad", "metarec.recommender._evaluate.gap_closed"),
    ]
