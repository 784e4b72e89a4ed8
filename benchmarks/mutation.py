"""Mutation testing of the decision rules: does the fast suite notice when a rule changes?

Usage::

    python benchmarks/mutation.py --markdown docs/benchmarks/mutation.md [--jobs 2]
    python benchmarks/mutation.py --module ensemble --limit 20      # a subset, no page
    python benchmarks/mutation.py --list                             # the mutants, not run

Each rule module of :data:`TARGETS` (task detection, the portfolio for a dataset, ensemble
selection, the answer policy, the learned ranker's answer margin and first answer) is parsed
with :mod:`ast`, and within the functions and constants named there every

- number becomes ``x * 2``, ``x / 2``, ``x + 1`` and ``x - 1`` (each distinct value once),
- comparison swaps ``<`` and ``<=``, ``>`` and ``>=``, ``==`` and ``!=``, ``in`` and
  ``not in``, ``is`` and ``is not``,
- ``and`` becomes ``or`` and ``or`` ``and``, a ``not`` is dropped,
- ``if`` loses its branch (its test becomes ``False``).

Each mutant is one such change spliced into the module's text (nothing else of the file
changes), written into a private copy of the package and its tests, and the target's fast
tests are run there (``pytest -x -q -p no:cacheprovider -m "not slow"``, with a timeout of
five times the unchanged run's and at least a minute).  A mutant is *killed* when a test
fails (or the run times out), and *survives* when every test passes: then either the tests
miss a change of the rule, or the change does not change what the code does (an
*equivalent* mutant).  Every survivor must be explained in :data:`EXPLANATIONS`, keyed by
its id (``module:scope:kind#n:change``: stable while the scope's code does not change);
a survivor without an explanation makes the script exit with status 1, and so does an
explanation whose mutant no longer exists.  :data:`NOW_KILLED` names the mutants an earlier
run let through and the test written since that kills each (the page lists them too).

The run is slow (a few minutes per target, a quarter of an hour for all of them on a loaded
two-core machine, one mutant at a time) and is not part of CI: run it when a module of
:data:`TARGETS` changes.  ``--module`` and ``--limit`` restrict it to a subset (a page is
then marked as partial).
"""

from __future__ import annotations

import argparse
import ast
import concurrent.futures
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pages import markdown_table, write_page

ROOT = Path(__file__).resolve().parents[1]
#: What the copy of the repository holds (the package, its tests and what they read).
COPIED = ("metarec", "tests", "pyproject.toml", "README.md", "docs")
#: The pytest command each mutant is tested with (the target's tests are appended).
PYTEST = ("-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-m", "not slow")


@dataclass(frozen=True)
class Target:
    """A rule module, the scopes of it that are mutated and the fast tests that guard them.

    Parameters
    ----------
    name : str
        The rule, as the page names it.
    module : str
        The file, relative to the repository's root.
    scopes : tuple of str
        Module-level functions, classes, ``Class.method`` or constants (assigned names).
    tests : tuple of str
        pytest arguments selecting the fast tests of the rule.
    """

    name: str
    module: str
    scopes: tuple[str, ...]
    tests: tuple[str, ...]


TARGETS = (
    Target(
        "task detection",
        "metarec/data/_types.py",
        (
            "MAX_INTEGER_CLASSES",
            "MIN_MEDIAN_CLASS_ROWS",
            "FEW_CLASSES",
            "MAX_CODE_SPREAD",
            "whole_number_quantity",
            "infer_task",
        ),
        ("tests/data/test_task_rule.py", "tests/data/test_loader.py"),
    ),
    Target(
        "the portfolio for a dataset",
        "metarec/recommender/_greedy.py",
        ("RANK_CLIP", "PRIOR_WEIGHT", "dataset_ranks", "greedy_portfolio"),
        ("tests/recommender/test_greedy.py",),
    ),
    Target(
        "the portfolio for a dataset",
        "metarec/recommender/_base.py",
        ("BaseRanker.portfolio",),
        ("tests/recommender/test_greedy.py",),
    ),
    Target(
        "the portfolio for a dataset",
        "metarec/recommender/_ranker.py",
        ("Recommender.portfolio",),
        ("tests/recommender/test_greedy.py",),
    ),
    Target(
        "the portfolio for a dataset",
        "metarec/automl/_loop.py",
        ("PORTFOLIO_SIZE", "SearchLoop._chosen"),
        ("tests/automl/test_portfolio_search.py",),
    ),
    Target(
        "ensemble selection",
        "metarec/automl/_ensemble.py",
        ("ROUNDS", "Selection", "ensemble_score", "ensemble_selection", "out_of_fold"),
        ("tests/automl/test_ensemble.py", "tests/automl/test_policy.py"),
    ),
    Target(
        "the answer policy",
        "metarec/automl/_answer.py",
        ("TIE_MIN_ROWS", "Answer", "AnswerPolicy"),
        ("tests/automl/test_policy.py",),
    ),
    Target(
        "the answer policy",
        "metarec/automl/_select.py",
        ("TIE_Z", "tied_with"),
        ("tests/automl/test_select.py", "tests/automl/test_policy.py"),
    ),
    Target(
        "the learned ranker's margin and first answer",
        "metarec/recommender/_learned.py",
        ("_fallback", "_answer"),
        ("tests/recommender/test_answer_rules.py",),
    ),
)

_ONE_FOLD = (
    "A default of 0.5 or 0 folds counts as one: the budget is compared with the expected "
    "time times `max(int(n_folds), 1)`."
)
_SPREAD = (
    "The floor of the number of datasets the prior weight is spread over differs from that "
    "number only when fewer than two datasets are kept: with one, the portfolio is that "
    "dataset's order whatever its weight (a weighted mean over one dataset); with none, the "
    "neighbours are refused before."
)
_TOLERANCE = (
    "The tolerance of a tie between candidates' scores: the scores of averaged predictions "
    "that differ by less than 2e-12 are one value rounded two ways (accuracies are fractions "
    "of the rows, AUCs of the pairs; an R² so close is a tie either way), so the ties and "
    "the picks are the same."
)
_ONE_MEMBER_TEST = (
    "An average's size is at least 1 (`max(1, ...)`), and with one member the tie test has "
    "nothing to test: the member is the best, every other algorithm a spare and no anchor "
    "joins (each of those also needs `size > 1`), whether the test is on or not."
)
_ONE_MEMBER_SPARES = (
    "With one member (size 1) the tie test is off (`size > 1` fails), so every spare passes "
    "it: the spares are all the rest either way."
)
_TIME_FLOOR = (
    "The floor under an expected time before its logarithm matters only below 1e-12 s: a "
    "time of 0 has no discount either way (the log of 0 or of a tiny floor is below 0, and "
    "`max(..., 0)` makes it 0); no expected time is negative."
)
#: Why each surviving mutant is equivalent to the code (no test can tell them apart), by id.
EXPLANATIONS: dict[str, str] = {
    "automl._answer:AnswerPolicy:compare#10:>=": _ONE_MEMBER_TEST,
    "automl._answer:AnswerPolicy:number#11:0.5": _ONE_MEMBER_TEST,
    "automl._answer:AnswerPolicy:number#11:0": _ONE_MEMBER_TEST,
    "automl._answer:AnswerPolicy:number#15:0": (
        "Testing the best too (`head[0:]`) leaves it in: the best is tied with itself "
        "(every paired difference 0, and 0 <= 0), so it is never left out."
    ),
    "automl._answer:AnswerPolicy:compare#11:>=": _ONE_MEMBER_SPARES,
    "automl._answer:AnswerPolicy:number#16:0.5": _ONE_MEMBER_SPARES,
    "automl._answer:AnswerPolicy:number#16:0": _ONE_MEMBER_SPARES,
    "recommender._learned:_answer:number#1:2e-12": _TIME_FLOOR,
    "recommender._learned:_answer:number#1:5e-13": _TIME_FLOOR,
    "recommender._learned:_answer:number#1:-0.999999999999": _TIME_FLOOR,
    "recommender._base:BaseRanker.portfolio:number#2:0.5": _ONE_FOLD,
    "recommender._base:BaseRanker.portfolio:number#2:0": _ONE_FOLD,
    "recommender._ranker:Recommender.portfolio:number#2:0.5": _ONE_FOLD,
    "recommender._ranker:Recommender.portfolio:number#2:0": _ONE_FOLD,
    "recommender._base:BaseRanker.portfolio:number#3:2": _SPREAD,
    "recommender._base:BaseRanker.portfolio:number#3:0.5": _SPREAD,
    "recommender._base:BaseRanker.portfolio:number#3:0": _SPREAD,
    "automl._ensemble:ensemble_score:if#3:deleted": (
        "Two classes then take the one-vs-rest mean: class 0's AUC of the scores 1 - p is "
        "class 1's AUC of p (the same pairs, each reversed), so their mean is the binary AUC."
    ),
    "automl._ensemble:ensemble_score:number#4:1": (
        "No prediction has one column (two classes at least): as the deleted branch, two "
        "classes take the one-vs-rest mean, which is the binary AUC."
    ),
    "automl._ensemble:ensemble_selection:compare#4:>": (
        "`>` instead of `>=` the best score minus 1e-12 keeps the best score itself and drops "
        "only a score exactly 1e-12 below it, which no average of predictions scores "
        "(accuracies are fractions of the rows, AUCs of the pairs)."
    ),
    "automl._ensemble:ensemble_selection:number#4:2e-12": _TOLERANCE,
    "automl._ensemble:ensemble_selection:number#4:5e-13": _TOLERANCE,
    "automl._ensemble:out_of_fold:number#1:2": (
        "`max(n_classes, 2)` is `n_classes` for classification (two classes or more); for "
        "regression (0) the sums get a second column that the values broadcast into and "
        "that is never read (`mean[:, 0]`)."
    ),
    "automl._ensemble:out_of_fold:number#5:-1": (
        "Regression's sums have one column: `mean[:, -1]` is `mean[:, 0]`."
    ),
}


_GREEDY = "tests/recommender/test_greedy.py::"
_TWENTY = _GREEDY + "test_a_portfolio_holds_twenty_configurations_by_default"
_FOLDS = _GREEDY + "test_the_budget_holds_the_top_of_each_expected_time_interval_for_every_fold"
_ROUNDS = (
    "tests/automl/test_ensemble.py::test_selection_by_hand_finds_the_pair_no_single_model_reaches"
)
_AUC = "tests/automl/test_ensemble.py::test_the_auc_of_more_classes_is_the_mean_over_the_classes_present"
_SIZE_ONE = (
    "tests/automl/test_policy.py::"
    "test_selection_chooses_members_and_weights_from_out_of_fold_predictions"
)
_TIED = "tests/automl/test_select.py::test_tied_with_at_its_boundaries"
#: Mutants that survived an earlier run of this script, and the test that kills them now.
NOW_KILLED: dict[str, str] = {
    "recommender._greedy:greedy_portfolio:number#1:1": (
        _GREEDY + "test_greedy_by_hand_and_the_weights_choose_for_the_dataset"
    ),
    **{f"recommender._base:BaseRanker.portfolio:number#1:{v}": _TWENTY for v in (40, 10, 21, 19)},
    **{
        f"recommender._ranker:Recommender.portfolio:number#1:{v}": _TWENTY for v in (40, 10, 21, 19)
    },
    "recommender._base:BaseRanker.portfolio:number#2:2": _FOLDS,
    "recommender._base:BaseRanker.portfolio:number#4:0.5": _FOLDS,
    "recommender._base:BaseRanker.portfolio:number#4:0": _FOLDS,
    **{f"automl._ensemble:ROUNDS:number#1:{v}": _ROUNDS for v in (100, 25, 51, 49)},
    **{
        f"automl._ensemble:ensemble_score:{key}": _AUC
        for key in (
            "compare#4:!=",
            "number#3:0",
            "number#4:4",
            "number#4:3",
            "number#6:2",
            "number#6:0.5",
            "number#6:0",
            "compare#5:!=",
            "number#7:1",
            "number#7:-1",
            "number#8:1",
            "number#8:-1",
        )
    },  # fmt: skip
    "automl._answer:AnswerPolicy:if#3:deleted": _SIZE_ONE,
    "automl._answer:AnswerPolicy:number#1:0.5": _SIZE_ONE,
    "automl._answer:AnswerPolicy:number#1:0": _SIZE_ONE,
    **{
        f"automl._select:tied_with:{key}": _TIED
        for key in (
            "number#2:0.5",
            "number#2:0",
            "if#3:deleted",
            "number#3:1",
            "number#4:0.5",
            "number#4:0",
            "number#5:2",
            "number#5:0.5",
            "number#5:0",
            "compare#5:<",
        )
    },  # fmt: skip
    "recommender._learned:_answer:number#3:-1.0": (
        "tests/recommender/test_answer_rules.py::"
        "test_the_first_answer_is_accuracy_within_patience_then_discounted_by_the_nth_root"
    ),
}


@dataclass(frozen=True)
class Mutant:
    """One change of one target module."""

    id: str
    target: Target
    start: int  # byte offsets of the replaced text in the module
    end: int
    replacement: str
    line: int
    original: str


_SWAPS = {
    ast.Lt: ast.LtE, ast.LtE: ast.Lt, ast.Gt: ast.GtE, ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.In: ast.NotIn, ast.NotIn: ast.In,
    ast.Is: ast.IsNot, ast.IsNot: ast.Is,
}  # fmt: skip
_SYMBOLS = {
    ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">=", ast.Eq: "==", ast.NotEq: "!=",
    ast.In: "in", ast.NotIn: "not in", ast.Is: "is", ast.IsNot: "is not",
}  # fmt: skip


def _scope_nodes(tree: ast.Module, scopes) -> dict[str, ast.AST]:
    """The AST node of each scope name (a missing one is an error: the table is stale)."""
    found: dict[str, ast.AST] = {}
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            found[node.name] = node
            if isinstance(node, ast.ClassDef):
                for inner in node.body:
                    if isinstance(inner, ast.FunctionDef):
                        found[f"{node.name}.{inner.name}"] = inner
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if isinstance(target, ast.Name):
                    found[target.id] = node
    missing = [s for s in scopes if s not in found]
    if missing:
        raise SystemExit(f"no {', '.join(missing)} in the module: update TARGETS")
    return {s: found[s] for s in scopes}


def _docstrings(scope: ast.AST) -> set[int]:
    """ids of the docstring expressions within ``scope``."""
    out = set()
    for node in ast.walk(scope):
        body = getattr(node, "body", None)
        if isinstance(body, list) and body and isinstance(body[0], ast.Expr):
            if isinstance(body[0].value, ast.Constant) and isinstance(body[0].value.value, str):
                out.add(id(body[0]))
    return out


def _in_order(scope: ast.AST) -> list[ast.AST]:
    """The nodes of ``scope`` in source order (depth first), docstrings and f-strings left
    out (their numbers are formatting, not rules)."""
    skip = _docstrings(scope)
    out: list[ast.AST] = []

    def visit(node):
        if id(node) in skip or isinstance(node, ast.JoinedStr):
            return
        out.append(node)
        for child in ast.iter_child_nodes(node):
            visit(child)

    visit(scope)
    return out


def _number_changes(value) -> list:
    """``x * 2``, ``x / 2``, ``x + 1``, ``x - 1``: the distinct values other than ``x``."""
    half = value // 2 if isinstance(value, int) and value % 2 == 0 else value / 2
    out = []
    for new in (value * 2, half, value + 1, value - 1):
        if new != value and new not in out:
            out.append(new)
    return out


def _literal(value) -> str:
    text = repr(value)
    return f"({text})" if text.startswith("-") else text


def mutants_of(target: Target) -> list[Mutant]:
    """Every mutant of ``target``, in source order, with its stable id."""
    data = (ROOT / target.module).read_bytes()
    tree = ast.parse(data)
    out: list[Mutant] = []
    for scope, node in _scope_nodes(tree, target.scopes).items():
        out += _scope_mutants(target, scope, node, data)
    return out


def _scope_mutants(target: Target, scope: str, node: ast.AST, data: bytes) -> list[Mutant]:
    """The mutants of one scope; ``kind#n`` counts the nodes of a kind in source order."""
    starts = [0]
    for line in data.splitlines(keepends=True):
        starts.append(starts[-1] + len(line))
    module_key = target.module.removeprefix("metarec/").removesuffix(".py").replace("/", ".")
    counts: dict[str, int] = {}
    out: list[Mutant] = []

    def add(kind: str, node: ast.AST, replacement: str, change: str) -> None:
        start = starts[node.lineno - 1] + node.col_offset  # (offsets are of bytes)
        end = starts[node.end_lineno - 1] + node.end_col_offset
        key = f"{module_key}:{scope}:{kind}#{counts[kind]}:{change}"
        out.append(
            Mutant(key, target, start, end, replacement, node.lineno, data[start:end].decode())
        )

    def bump(kind: str) -> None:
        counts[kind] = counts.get(kind, 0) + 1

    for child in _in_order(node):
        if isinstance(child, ast.Constant) and type(child.value) in (int, float):
            bump("number")
            for new in _number_changes(child.value):
                add("number", child, _literal(new), repr(new))
        elif isinstance(child, ast.Compare):
            for k, op in enumerate(child.ops):
                bump("compare")
                if type(op) not in _SWAPS:
                    continue
                ops = list(child.ops)
                ops[k] = _SWAPS[type(op)]()
                swapped = ast.Compare(child.left, ops, child.comparators)
                add("compare", child, f"({ast.unparse(swapped)})", _SYMBOLS[type(ops[k])])
        elif isinstance(child, ast.BoolOp):
            bump("boolop")
            other = ast.Or() if isinstance(child.op, ast.And) else ast.And()
            name = "or" if isinstance(other, ast.Or) else "and"
            add("boolop", child, f"({ast.unparse(ast.BoolOp(other, child.values))})", name)
        elif isinstance(child, ast.UnaryOp) and isinstance(child.op, ast.Not):
            bump("not")
            add("not", child, f"({ast.unparse(child.operand)})", "dropped")
        elif isinstance(child, ast.If):
            bump("if")
            add("if", child.test, "False", "deleted")
    return out


def _copy(into: Path) -> Path:
    """A copy of what the tests need, without compiled files."""
    for name in COPIED:
        source = ROOT / name
        if source.is_dir():
            shutil.copytree(source, into / name, ignore=shutil.ignore_patterns("__pycache__"))
        elif source.exists():
            shutil.copy2(source, into / name)
    return into


def _environment(copy: Path) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(copy)  # the copy's package, in the worker processes too
    env["PYTHONDONTWRITEBYTECODE"] = "1"  # a mutant is compiled afresh, never from a cache
    env["METAREC_HOME"] = str(copy / ".home")
    env.setdefault("OMP_NUM_THREADS", "1")
    return env


def _pytest(copy: Path, tests, timeout: float) -> tuple[str, float]:
    """``("passed" | "failed" | "timeout", seconds)`` of the tests run in ``copy``."""
    began = time.perf_counter()
    try:
        done = subprocess.run(
            [sys.executable, *PYTEST, *tests], cwd=copy, env=_environment(copy),
            capture_output=True, timeout=timeout,
        )  # fmt: skip
    except subprocess.TimeoutExpired:
        return "timeout", time.perf_counter() - began
    if done.returncode not in (0, 1):  # 2-5: interrupted, internal error, usage, no tests
        tail = done.stdout.decode(errors="replace")[-2000:]
        raise SystemExit(f"pytest exited with {done.returncode} in {copy}:\n{tail}")
    return ("passed" if done.returncode == 0 else "failed"), time.perf_counter() - began


def _check_copy(copy: Path) -> None:
    """The copy's package is the one imported there (not the installed one)."""
    found = subprocess.run(
        [sys.executable, "-c", "import metarec; print(metarec.__file__)"],
        cwd=copy, env=_environment(copy), capture_output=True, text=True, check=True,
    ).stdout.strip()  # fmt: skip
    if not Path(found).resolve().is_relative_to(copy.resolve()):
        raise SystemExit(f"the copy imports {found}, not its own package")


def run(mutants: list[Mutant], jobs: int, progress=print) -> dict[str, tuple[str, float]]:
    """Each mutant's outcome (``killed``, ``timeout`` or ``survived``) and seconds."""
    results: dict[str, tuple[str, float]] = {}
    with tempfile.TemporaryDirectory(prefix="metarec-mutation-") as folder:
        copies = [_copy(Path(folder) / f"copy{i}") for i in range(max(1, jobs))]
        for copy in copies:
            (copy / "tests").mkdir(exist_ok=True)
        _check_copy(copies[0])
        # the unchanged code must pass its tests (else every mutant would look killed)
        limits: dict[Target, float] = {}
        for target in dict.fromkeys(m.target for m in mutants):
            outcome, seconds = _pytest(copies[0], target.tests, timeout=1800)
            if outcome != "passed":
                raise SystemExit(f"the tests of {target.module} fail without a mutant")
            limits[target] = max(60.0, 5 * seconds)
            progress(f"{target.module}: the unchanged tests pass in {seconds:.1f} s")
        free = list(copies)
        total = len(mutants)

        def one(mutant: Mutant) -> tuple[Mutant, str, float]:
            copy = free.pop()
            try:
                path = copy / mutant.target.module
                original = path.read_bytes()
                changed = (original[: mutant.start] + mutant.replacement.encode()
                           + original[mutant.end :])  # fmt: skip
                path.write_bytes(changed)
                try:
                    outcome, seconds = _pytest(copy, mutant.target.tests, limits[mutant.target])
                finally:
                    path.write_bytes(original)
            finally:
                free.append(copy)
            verdict = {"passed": "survived", "failed": "killed"}.get(outcome, outcome)
            return mutant, verdict, seconds

        with concurrent.futures.ThreadPoolExecutor(max_workers=len(copies)) as pool:
            for done, (mutant, verdict, seconds) in enumerate(pool.map(one, mutants), 1):
                results[mutant.id] = (verdict, seconds)
                progress(f"[{done}/{total}] {verdict:8} {seconds:5.1f} s  {mutant.id}")
    return results


def _change(mutant: Mutant) -> str:
    """The change, on one line, for a table cell."""
    before = " ".join(mutant.original.split())
    return f"line {mutant.line}: `{before}` → `{mutant.replacement}`".replace("|", "\\|")


def page(mutants: list[Mutant], results, *, partial: str | None, command: str) -> str:
    """The page's text: the counts by rule and module, every survivor and why."""
    rows = []
    by_module: dict[Target, list[Mutant]] = {}
    for mutant in mutants:
        by_module.setdefault(mutant.target, []).append(mutant)
    total_killed = 0
    for target, group in by_module.items():
        killed = sum(results[m.id][0] != "survived" for m in group)
        total_killed += killed
        scopes = ", ".join(f"`{s}`" for s in target.scopes)
        rows.append((target.name, f"`{target.module}` ({scopes})", len(group), killed,
                     len(group) - killed, f"{100 * killed / len(group):.0f} %"))  # fmt: skip
    rows.append(("all", "", len(mutants), total_killed, len(mutants) - total_killed,
                 f"{100 * total_killed / max(len(mutants), 1):.1f} %"))  # fmt: skip
    survivors = [m for m in mutants if results[m.id][0] == "survived"]
    timeouts = sum(results[m.id][0] == "timeout" for m in mutants)
    text = [
        "Does the fast suite notice when a decision rule changes?  Every mutant is one small "
        "change of a rule module (a number doubled, halved, plus or minus one; a comparison "
        "made strict or loose; `and` and `or` swapped; a `not` dropped; an `if` branch "
        "deleted), run against the fast tests that guard that module "
        '(`pytest -x -m "not slow"`).  Killed: a test failed (or the run timed out); '
        "survived: every test passed.",
        "",
        f"**{total_killed} of {len(mutants)} mutants killed "
        f"({100 * total_killed / max(len(mutants), 1):.1f} %)**, {timeouts} of them by a "
        f"timeout; {len(survivors)} survived, each explained below.",
    ]
    if partial:
        text += ["", f"A partial run ({partial}): not every mutant was run."]
    text += ["", markdown_table(("rule", "module (scopes)", "mutants", "killed", "survived",
                                 "killed %"), rows)]  # fmt: skip
    if survivors:
        text += ["", "## Survivors", "",
                 "Each is equivalent to the code: no input can tell them apart (or the "
                 "difference cannot be seen from outside the function), as explained.", ""]  # fmt: skip
        table = [
            (
                f"`{m.id}`",
                _change(m),
                EXPLANATIONS.get(m.id, "**not explained**").replace("|", "\\|"),
            )
            for m in survivors
        ]
        text.append(markdown_table(("mutant", "change", "why it survives"), table))
    killed_now = [m for m in mutants if m.id in NOW_KILLED and results[m.id][0] != "survived"]
    if killed_now:
        text += ["", "## Survivors of an earlier run, killed now", "",
                 "Mutants the fast suite let through when this script first ran, and the test "
                 "written since that kills each.", ""]  # fmt: skip
        table = [(f"`{m.id}`", _change(m), f"`{NOW_KILLED[m.id]}`") for m in killed_now]
        text.append(markdown_table(("mutant", "change", "killed by"), table))
    text += ["", f"Written by `{command}` (about {sum(s for _, s in results.values()) / 60:.0f} "
             "minutes of test runs)."]  # fmt: skip
    return "\n".join(text)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--module",
        action="append",
        default=[],
        help="only the targets whose module or rule contains this (repeatable)",
    )
    parser.add_argument("--limit", type=int, help="at most this many mutants")
    parser.add_argument("--only", action="append", default=[], help="only this mutant id")
    parser.add_argument("--jobs", type=int, default=1, help="mutants tested at once")
    parser.add_argument("--list", action="store_true", help="list the mutants, run none")
    parser.add_argument("--markdown", type=Path, help="write the page here")
    args = parser.parse_args(argv)  # fmt: skip

    targets = [t for t in TARGETS if not args.module
               or any(w in t.module or w in t.name for w in args.module)]  # fmt: skip
    found = {t: mutants_of(t) for t in TARGETS}
    every = {m.id for group in found.values() for m in group}
    if len(every) != sum(map(len, found.values())):
        raise SystemExit("two mutants share an id")
    mutants = [m for t in targets for m in found[t]]
    if args.only:
        mutants = [m for m in mutants if m.id in args.only]
    if args.limit is not None:
        mutants = mutants[: args.limit]
    if args.list:
        for m in mutants:
            print(f"{m.id}\tline {m.line}: {m.original.strip()!r} -> {m.replacement!r}")
        print(f"{len(mutants)} mutants")
        return 0
    stale = sorted((set(EXPLANATIONS) | set(NOW_KILLED)) - every)
    results = run(mutants, args.jobs)
    survivors = [m for m in mutants if results[m.id][0] == "survived"]
    unexplained = [m.id for m in survivors if m.id not in EXPLANATIONS]
    killed = len(mutants) - len(survivors)
    print(
        f"{killed} of {len(mutants)} mutants killed ({100 * killed / max(len(mutants), 1):.1f} %)"
    )
    partial = None
    if args.module or args.limit is not None or args.only:
        partial = ", ".join(
            [f"--module {w}" for w in args.module] + [f"--only {i}" for i in args.only]
            + ([f"--limit {args.limit}"] if args.limit is not None else [])
        )  # fmt: skip
    command = " ".join(["python benchmarks/mutation.py", *(argv or sys.argv[1:])])
    write_page(args.markdown, "Mutation testing of the decision rules",
               page(mutants, results, partial=partial, command=command))  # fmt: skip
    for mutant_id in unexplained:
        print(f"survived, not explained: {mutant_id}")
    for mutant_id in stale:
        print(f"explained, but no such mutant: {mutant_id}")
    return 1 if unexplained or stale else 0


if __name__ == "__main__":
    raise SystemExit(main())
