"""`metarec run` on large data against FLAML and LightGBM's defaults, the same split.

Usage::

    pip install -e ".[boosting,bench]"
    python benchmarks/large_vs_flaml.py --budgets 60 300 \
        --markdown docs/benchmarks/large-vs-flaml.md

Datasets: the 13 of ``../shared/datasets/large`` (9 classification, 4 regression; 15,524 to
372,864 rows).  Each is split once, 80/20 (seed 0; stratified by class for
classification); the training part is written to a CSV file, as a user would hand it over,
and every method sees that file only; the test part scores each answer (accuracy; R² for
regression).  Methods, each a call in a fresh process on both cores:

- ``metarec run train.csv --budget B -j 2 --output model.joblib`` (the defaults otherwise:
  ``--protocol auto``), with a knowledge base that is the built-in one without the dataset
  (its whole ladder of subsamples left out: the large-data build holds every one of these
  datasets), its recommender fitted beforehand, as the shipped ones are.
- FLAML 2.8 ``AutoML().fit(X, y, time_budget=B, n_jobs=2, seed=0)`` on the file read with
  pandas, string columns as categories.
- with ``--defaults``, ``metarec run`` as above with a knowledge base of the default
  algorithms alone (the configurations' results left out): ``defaults<B>``.
- with ``--selection``, ``metarec run`` as above with ``--ensemble-method selection``
  (greedy ensemble selection on the validation rows instead of the average):
  ``selection<B>``.
- with ``--autogluon``, AutoGluon's default preset, ``TabularPredictor(...).fit(train,
  time_limit=B, num_cpus=2)``, in its own virtual environment (``AUTOGLUON_PYTHON``: its
  python, e.g. ``python -m venv /tmp/ag && /tmp/ag/bin/pip install
  "autogluon.tabular[lightgbm,catboost,xgboost]"``): ``autogluon<B>``.
- LightGBM's defaults, fitted once (``LGBMClassifier()`` / ``LGBMRegressor()``, string
  columns as pandas categories: its native categorical handling).

Each call's wall time is the whole process (start-up, reading the file, the fit); its peak
memory is the process's and its children's largest resident set (``wait4``).  The answer is
scored by another process.  Limits the numbers are held to: every ``run`` within
``B x 1.1 + 3`` seconds; ``run`` within 0.5 points of LightGBM's defaults on every dataset and
at or above FLAML at the same budget on the mean, paired by dataset.

Every (method, dataset) result is kept as a JSON file in ``--results`` (committed), so the
run resumes where it stopped; ``--redo METHOD`` computes a method again.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _pages import markdown_table, write_page

ROOT = Path(__file__).resolve().parents[1]
LARGE = ROOT.parent / "shared" / "datasets" / "large"
RESULTS = ROOT / "benchmarks" / "builds" / "large_vs_flaml"
WORK = Path(tempfile.gettempdir()) / "metarec-large-vs-flaml"
SEED = 0
TEST_SHARE = 0.2
#: The methods that are ``metarec run`` calls (repeated with ``--repeats``).
OURS = ("metarec", "defaults", "selection")

FIT_SCRIPT = r"""
import pickle, sys, time, warnings
import numpy as np, pandas as pd
warnings.simplefilter("ignore")
method, train, out, budget, task = sys.argv[1:6]
frame = pd.read_csv(train)
y = frame.pop("target")
for column in frame.columns:
    if not (pd.api.types.is_numeric_dtype(frame[column])
            or pd.api.types.is_bool_dtype(frame[column])):
        frame[column] = frame[column].astype("category")
regression = task == "regression"
y = y.astype(float) if regression else y.astype(str)
if method == "lightgbm":
    import lightgbm
    model = (lightgbm.LGBMRegressor if regression else lightgbm.LGBMClassifier)(verbose=-1)
    model.fit(frame, y)
else:
    from flaml import AutoML
    model = AutoML()
    model.fit(frame, y, task="regression" if regression else "classification",
              metric="r2" if regression else "accuracy", time_budget=float(budget),
              n_jobs=2, seed=0, verbose=0)
categories = {c: list(frame[c].cat.categories) for c in frame.columns
              if str(frame[c].dtype) == "category"}
pickle.dump((model, categories), open(out, "wb"))
"""

SCORE_SCRIPT = r"""
import json, pickle, sys, warnings
import numpy as np, pandas as pd
warnings.simplefilter("ignore")
kind, model_path, test, out, task = sys.argv[1:6]
frame = pd.read_csv(test)
y = frame.pop("target")
if kind == "metarec":
    import joblib
    predicted = joblib.load(model_path).predict(frame)
else:
    model, categories = pickle.load(open(model_path, "rb"))
    for column, levels in categories.items():
        frame[column] = pd.Categorical(frame[column], categories=levels)
    predicted = model.predict(frame)
if task == "regression":
    from sklearn.metrics import r2_score
    score = r2_score(y.astype(float), np.asarray(predicted, dtype=float))
else:
    score = float(np.mean(np.asarray(predicted).astype(str) == y.astype(str).to_numpy()))
json.dump({"score": float(score)}, open(out, "w"))
"""


AUTOGLUON_FIT = r"""
import sys
import pandas as pd
from autogluon.tabular import TabularPredictor
train, where, budget, task = sys.argv[1:5]
frame = pd.read_csv(train)
if task == "regression":
    problem, metric = "regression", "r2"
else:
    frame["target"] = frame["target"].astype(str)
    problem = "binary" if frame["target"].nunique() == 2 else "multiclass"
    metric = "accuracy"
predictor = TabularPredictor(label="target", problem_type=problem, eval_metric=metric,
                             path=where, verbosity=0)
predictor.fit(frame, time_limit=float(budget), num_cpus=2, num_gpus=0)
print(predictor.model_best)
"""

AUTOGLUON_SCORE = r"""
import json, sys
import numpy as np, pandas as pd
from autogluon.tabular import TabularPredictor
where, test, out, task = sys.argv[1:5]
frame = pd.read_csv(test)
y = frame.pop("target")
predicted = TabularPredictor.load(where).predict(frame)
if task == "regression":
    from sklearn.metrics import r2_score
    score = r2_score(y.astype(float), np.asarray(predicted, dtype=float))
else:
    score = float(np.mean(np.asarray(predicted).astype(str) == y.astype(str).to_numpy()))
json.dump({"score": float(score)}, open(out, "w"))
"""


def manifest() -> pd.DataFrame:
    return pd.read_csv(LARGE / "manifest.csv")


def split(name: str, task: str) -> tuple[Path, Path]:
    """The dataset's training and test CSV files (written once)."""
    folder = WORK / "data" / name
    train, test = folder / "train.csv", folder / "test.csv"
    if train.exists() and test.exists():
        return train, test
    from sklearn.model_selection import train_test_split

    folder.mkdir(parents=True, exist_ok=True)
    frame = pd.read_csv(LARGE / "data" / f"{name}.csv.gz", low_memory=False)
    stratify = frame["target"] if task == "classification" else None
    left, right = train_test_split(
        frame, test_size=TEST_SHARE, random_state=SEED, stratify=stratify
    )
    left.to_csv(train, index=False)
    right.to_csv(test, index=False)
    return train, test


def held_out_kb(name: str, *, defaults_only: bool = False) -> tuple[Path, Path]:
    """(a SQLite knowledge base: the built-in one without ``name`` and its subsamples, and
    without the configurations with ``defaults_only``; its METAREC_HOME with the
    recommender fitted), made once."""
    from _kb_frames import builtin_copy, builtin_version

    # a new built-in knowledge base: new copies
    folder = WORK / "kbs" / builtin_version() / (f"{name}-defaults" if defaults_only else name)
    path, home = folder / "kb.sqlite", folder / "home"
    if path.exists():
        return path, home
    folder.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.unlink(missing_ok=True)
    builtin_copy(tmp, without=name, defaults_only=defaults_only)
    tmp.replace(path)
    # fit (and cache) the recommenders once, outside every timed call
    env = {**os.environ, "METAREC_HOME": str(home)}
    for task in ("sklearn:iris", "sklearn:diabetes"):
        subprocess.run(
            [sys.executable, "-m", "metarec", "--db", f"sqlite:///{path}", "recommend", task,
             "--format", "csv"],
            env=env, capture_output=True, check=True,
        )  # fmt: skip
    return path, home


def _run(command: list[str], env: dict | None = None) -> tuple[float, float, str, str]:
    """Run ``command``; (wall seconds, peak resident MiB of it and its children, stdout,
    stderr) from ``wait4``."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        process = subprocess.Popen(command, env=env, stdout=out, stderr=err, text=True)
        _, status, usage = os.wait4(process.pid, 0)  # reaped here: its resource usage
        wall = time.perf_counter() - start
        process.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read(), err.read()
    if process.returncode != 0:
        raise RuntimeError(f"{Path(command[0]).name} exited {process.returncode}: {stderr[-300:]}")
    return wall, usage.ru_maxrss / 1024.0, stdout, stderr


def compute(method: str, name: str, task: str, budget: int | None) -> dict:
    train, test = split(name, task)
    work = Path(tempfile.mkdtemp(prefix=f"large-{method}-", dir=WORK))
    try:
        if method.startswith(OURS):
            kb, home = held_out_kb(name, defaults_only=method.startswith("defaults"))
            db = work / "kb.sqlite"
            shutil.copyfile(kb, db)
            model = work / "model.joblib"
            command = [
                sys.executable, "-m", "metarec", "--db", f"sqlite:///{db}", "run", str(train),
                "--target", "target", "--budget", str(budget), "-j", "2", "--output",
                str(model), "--format", "json",
            ]  # fmt: skip
            if method.startswith("selection"):
                command += ["--ensemble-method", "selection"]
            wall, peak, out, _ = _run(command, env={**os.environ, "METAREC_HOME": str(home)})
            sidecar = json.loads(model.with_suffix(".json").read_text())
            choice = "+".join(sidecar.get("ensemble") or [sidecar["algorithm"]])
            kind = "metarec"
        elif method.startswith("autogluon"):
            python = os.environ.get("AUTOGLUON_PYTHON")
            if not python:
                raise RuntimeError("AUTOGLUON_PYTHON names the python of a venv with autogluon")
            model = work / "predictor"
            env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
            command = [python, "-c", AUTOGLUON_FIT, str(train), str(model), str(budget), task]
            wall, peak, out, _ = _run(command, env=env)
            choice = out.strip().splitlines()[-1] if out.strip() else "?"
            scored = work / "score.json"
            _run([python, "-c", AUTOGLUON_SCORE, str(model), str(test), str(scored), task], env=env)
            kind = None
        else:
            model = work / "model.pkl"
            command = [sys.executable, "-c", FIT_SCRIPT, method.rstrip("0123456789"),
                       str(train), str(model), str(budget or 0), task]  # fmt: skip
            wall, peak, _, _ = _run(command)
            choice = "lightgbm defaults"
            if method.startswith("flaml"):
                import pickle

                with open(model, "rb") as handle:
                    choice = str(pickle.load(handle)[0].best_estimator)
            kind = "pickle"
        if kind is not None:
            scored = work / "score.json"
            command = [sys.executable, "-c", SCORE_SCRIPT, kind, str(model), str(test),
                       str(scored), task]  # fmt: skip
            _run(command)
        score = json.loads((work / "score.json").read_text())["score"]
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT,
                                capture_output=True, text=True).stdout.strip()  # fmt: skip
        return {"method": method, "dataset": name, "task": task, "budget": budget,
                "score": score, "wall": wall, "peak_mib": peak, "choice": choice,
                "commit": commit}  # fmt: skip
    finally:
        shutil.rmtree(work, ignore_errors=True)


def methods_for(
    budgets: list[int], defaults: bool = False, autogluon: bool = False, selection: bool = False
) -> list[tuple[str, int | None]]:
    out = [("lightgbm", None)]
    for budget in budgets:
        out += [(f"metarec{budget}", budget), (f"flaml{budget}", budget)]
        out += [(f"defaults{budget}", budget)] if defaults else []
        out += [(f"selection{budget}", budget)] if selection else []
        out += [(f"autogluon{budget}", budget)] if autogluon else []
    return out


def _paired(wide: pd.DataFrame, method: str, other: str) -> pd.Series:
    """``method`` minus ``other`` by dataset, in points (accuracy in percentage points, R² in
    hundredths), on the datasets both have."""
    return (100.0 * (wide[method] - wide[other])).dropna()


def summary(results: pd.DataFrame, budgets: list[int]) -> tuple[str, str]:
    """The per-dataset table and the verdicts (a method's repeated calls on a dataset: the
    mean of their scores, the longest wall time and the largest peak)."""
    keys = {"index": "dataset", "columns": "method"}
    wide = results.pivot_table(values="score", aggfunc="mean", dropna=False, **keys)
    walls = results.pivot_table(values="wall", aggfunc="max", dropna=False, **keys)
    peaks = results.pivot_table(values="peak_mib", aggfunc="max", dropna=False, **keys)
    calls = results.groupby("method")["repeat"].max()
    tasks = results.drop_duplicates("dataset").set_index("dataset")["task"]
    columns = ["dataset", "task"]
    rows = []
    for dataset in wide.index:
        row = [dataset, tasks[dataset]]
        for method in wide.columns:
            value = wide.loc[dataset, method]
            if not np.isfinite(value):
                row.append("")
                continue
            shown = f"{value:.4f}" if tasks[dataset] == "regression" else f"{100 * value:.2f}"
            wall, peak = walls.loc[dataset, method], peaks.loc[dataset, method]
            row.append(f"{shown} ({wall:.0f} s, {peak:.0f} MiB)")
        rows.append(row)
    columns += [f"{m}: score (wall, peak)" for m in wide.columns]
    table = markdown_table(columns, rows)
    lines = []
    repeated = calls[calls > 1]
    if len(repeated):
        lines.append(
            "- Scores of "
            + ", ".join(f"{m} (up to {int(n)} calls)" for m, n in repeated.items())
            + ": the mean of a dataset's calls; their wall time the longest, their peak the "
            "largest."
        )
    for budget in budgets:
        ours, flaml = f"metarec{budget}", f"flaml{budget}"
        if ours not in wide or "lightgbm" not in wide:
            continue
        # points: accuracy in percentage points, R² in hundredths
        gap = 100.0 * (wide[ours] - wide["lightgbm"])
        done = gap.dropna()
        runs = results[results["method"].isin(
            [f"{kind}{budget}" for kind in ("metarec", "defaults", "selection")])]  # fmt: skip
        over = runs[runs["wall"] > 1.1 * budget + 3]
        line = (
            f"- `--budget {budget}`: on {done.size} datasets, metarec minus LightGBM's defaults "
            f"{done.mean():+.2f} points on the mean, worst {done.min():+.2f} "
            f"({done.idxmin()}); within 0.5 points or above on {(done >= -0.5).sum()} of "
            f"{done.size}. Calls of `metarec run` (every variant) over {budget} x 1.1 + 3 s: "
            f"{len(over)}"
            + "".join(
                f" ({m} on {d}, {w:.1f} s)"
                for m, d, w in zip(over["method"], over["dataset"], over["wall"], strict=True)
            )  # fmt: skip
            + f"; longest {runs['wall'].max():.1f} s."
        )
        heaviest = runs.loc[runs["peak_mib"].idxmax()]
        line += (
            f" Peak memory of a call (the process and its workers): at most "
            f"{heaviest['peak_mib']:.0f} MiB ({heaviest['method']} on {heaviest['dataset']}),"
            f" median {runs['peak_mib'].median():.0f} MiB."
        )
        for other, label in ((flaml, "FLAML"), (f"autogluon{budget}", "AutoGluon")):
            if other not in wide:
                continue
            paired = _paired(wide, ours, other)
            line += (
                f" Against {label} at {budget} s, paired over {paired.size} datasets: "
                f"{paired.mean():+.2f} points on the mean (metarec ahead on "
                f"{(paired > 0).sum()}, behind on {(paired < 0).sum()})."
            )
        defaults = f"defaults{budget}"
        if defaults in wide:
            paired = _paired(wide, ours, defaults)
            line += (
                f" With configurations against the default algorithms alone, paired over "
                f"{paired.size} datasets: {paired.mean():+.2f} points on the mean (ahead on "
                f"{(paired > 0).sum()}, behind on {(paired < 0).sum()}; median "
                f"{np.median(paired):+.2f}, standard error "
                f"{paired.std(ddof=1) / np.sqrt(max(paired.size, 1)):.2f})."
            )
        chosen = f"selection{budget}"
        if chosen in wide:
            paired = _paired(wide, chosen, ours)
            line += (
                f" Ensemble selection against the default average, paired over {paired.size} "
                f"datasets: {paired.mean():+.2f} points on the mean (ahead on "
                f"{(paired > 0).sum()}, behind on {(paired < 0).sum()}; standard error "
                f"{paired.std(ddof=1) / np.sqrt(max(paired.size, 1)):.2f})."
            )
        lines.append(line)
    return table, "\n".join(lines)


def _call(args, method: str, name: str, task: str, budget, repeat: int) -> None:
    """Compute one call (the ``repeat``-th of ``method`` on ``name``) unless its file exists."""
    suffix = "" if repeat == 1 else f"-r{repeat}"
    path = args.results / f"{method}-{name}{suffix}.json"
    if path.exists() and method not in args.redo:
        return
    try:
        result = compute(method, name, task, budget)
    except RuntimeError as exc:
        result = {"method": method, "dataset": name, "task": task, "budget": budget,
                  "score": float("nan"), "wall": float("nan"),
                  "peak_mib": float("nan"), "choice": f"failed: {exc}"[:300]}  # fmt: skip
    result["repeat"] = repeat
    path.write_text(json.dumps(result, indent=1))
    print(f"{method}#{repeat} {name}: {result['score']:.4f} in {result['wall']:.1f} s, "
          f"{result['peak_mib']:.0f} MiB ({result['choice']})", flush=True)  # fmt: skip


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--budgets", type=int, nargs="+", default=[60, 300])
    parser.add_argument("--datasets", nargs="*", default=None)
    parser.add_argument("--results", type=Path, default=RESULTS)
    parser.add_argument("--redo", nargs="*", default=[])
    parser.add_argument(
        "--defaults",
        action="store_true",
        help="also run with a knowledge base of the default algorithms alone",
    )
    parser.add_argument(
        "--autogluon",
        action="store_true",
        help="also AutoGluon's default preset (AUTOGLUON_PYTHON: a venv's python with it)",
    )
    parser.add_argument(
        "--selection",
        action="store_true",
        help="also run with --ensemble-method selection",
    )
    parser.add_argument(
        "--only", nargs="*", default=None, help="compute these methods only (read the others)"
    )
    parser.add_argument(
        "--repeats",
        type=int,
        default=1,
        help="calls of each metarec method on each dataset (their scores averaged: a "
        "search's timing varies from call to call)",
    )
    parser.add_argument("--note", default="", help="a sentence on the conditions, for the page")
    parser.add_argument("--markdown", type=Path, default=None)
    args = parser.parse_args(argv)
    WORK.mkdir(parents=True, exist_ok=True)
    args.results.mkdir(parents=True, exist_ok=True)
    table = manifest()
    if args.datasets:
        table = table[table["name"].isin(args.datasets)]
    table = table.sort_values("rows")
    chosen = methods_for(args.budgets, args.defaults, args.autogluon, args.selection)
    # dataset by dataset, the methods interleaved: a stopped run leaves paired results
    for name, task in zip(table["name"], table["task"], strict=True):
        for method, budget in chosen:
            if args.only is not None and method not in args.only:
                continue
            calls = args.repeats if method.startswith(OURS) else 1
            for repeat in range(1, calls + 1):
                _call(args, method, name, task, budget, repeat)
    results = pd.DataFrame([json.loads(p.read_text()) for p in sorted(args.results.glob("*.json"))])
    results["repeat"] = results.get("repeat", pd.Series(1, index=results.index)).fillna(1)
    wanted = [m for m, _ in chosen]
    results = results[results["dataset"].isin(table["name"]) & results["method"].isin(wanted)]
    per_dataset, verdicts = summary(results, args.budgets)
    ours = results[results["method"].str.startswith(OURS)]
    commits = sorted(set(ours.get("commit", pd.Series(dtype=str)).dropna()))
    text = (
        "`python benchmarks/large_vs_flaml.py --budgets "
        + " ".join(map(str, args.budgets))
        + "`: the 13 large datasets of `shared/datasets/large`, one 80/20 split each (seed 0, "
        "stratified for classification); every method a call in a fresh process on two "
        "cores, reading the training CSV file, scored on the test part (accuracy in %; R² for "
        "regression). `metarec run --budget B -j 2` with the built-in knowledge base "
        "without the dataset (its ladder of subsamples too); FLAML `time_budget=B, "
        "n_jobs=2`; AutoGluon's default preset `time_limit=B, num_cpus=2` (where measured); "
        "LightGBM's defaults fitted once with native categories. Wall time of "
        "the whole call and peak resident memory of the process and its children.\n\n"
        "Points: accuracy in percentage points, R² in hundredths. metarec's results were "
        f"measured at commits {', '.join(commits) or 'unknown'} (each result file says which)."
        + (f" {args.note}" if args.note else "")
        + f"\n\n{verdicts}\n\n{per_dataset}"
    )
    print(text)
    write_page(args.markdown, "Large data: run against FLAML and LightGBM's defaults", text)


if __name__ == "__main__":
    main()
