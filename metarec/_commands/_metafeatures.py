"""``metarec metafeatures DATA``: characterise a dataset."""

from __future__ import annotations

import click

from metarec._commands._output import echo_note, emit, format_option, note_loaded, open_kb, status
from metarec._commands._types import as_classes_option, target_option, task_option

GROUP_NAMES = ("general", "imbalance", "snr", "statistical", "info", "landmarkers", "regression")


def _check_groups(ctx: click.Context, param: click.Parameter, value: str | None):
    """Click callback of ``--groups``: known names, checked before the data is loaded."""
    if value is None:
        return None
    groups = [g.strip() for g in value.split(",") if g.strip()]
    unknown = [g for g in groups if g not in GROUP_NAMES]
    if unknown or not groups:
        raise click.BadParameter(
            f"unknown group(s) {', '.join(map(repr, unknown)) or repr(value)}; "
            f"choose from {', '.join(GROUP_NAMES)}"
        )
    return groups


@click.command()
@click.argument("data", metavar="DATA")
@target_option
@click.option(
    "--groups",
    metavar="G1,G2",
    callback=_check_groups,
    help="Comma-separated groups: general, imbalance, snr, statistical, info, landmarkers, "
    "regression [default: all].",
)
@click.option("--name", help="Dataset name stored with --save [default: file stem / source].")
@task_option
@as_classes_option
@click.option(
    "--seed", type=int, default=0, show_default=True, help="Random state of the extraction."
)
@click.option(
    "--save",
    is_flag=True,
    help="Record the dataset and its metafeatures in the knowledge base (--db).",
)
@format_option()
@click.pass_context
def metafeatures(ctx, data, target, groups, name, task, as_classes, seed, save, fmt):
    """Compute the metafeatures of DATA and print them (name, value, group, reason for NaN).

    DATA is a CSV/TSV/ARFF file (optionally .gz), a Parquet file, openml:<id> or
    sklearn:<name> (iris, wine, breast_cancer, digits, diabetes).  A continuous target is
    characterised as "task regression" (class-based metafeatures are NaN with a reason, and
    the regression group describes the target); --task overrides the detected task.

    \b
    Example:
      metarec metafeatures sklearn:iris
      metarec metafeatures data.csv --target label --groups general,imbalance,snr --format json
      metarec metafeatures data.csv --save
    """
    import pandas as pd

    from metarec.data import load_dataset
    from metarec.metafeatures import extract, metafeature_group

    with status(f"Loading {data}"):
        dataset = load_dataset(data, target=target, name=name, as_classes=as_classes, task=task)
    note_loaded(dataset)
    stored_as = None
    if save:  # the name it is stored under, before any work: another dataset's is kept
        from metarec.execution import stored_name

        kb = open_kb(ctx)
        stored_as, renamed = stored_name(dataset, kb.datasets())
        if renamed:
            echo_note(renamed)
    with status(f"Computing the metafeatures of {dataset.name}"):
        result = extract(dataset.X, dataset.y, groups=groups, task=dataset.task, random_state=seed)
    names = list(result)
    frame = pd.DataFrame(
        {
            "name": names,
            "value": [result[n] for n in names],
            "group": [metafeature_group(n) for n in names],
            "reason": [result.reasons.get(n, "") for n in names],
        }
    )
    if save:
        with status("Saving to the knowledge base"):
            kb.add_dataset(
                stored_as,
                source=dataset.source,
                source_id=dataset.source_id,
                task=dataset.task,
                n_instances=dataset.n_instances,
                n_features=dataset.n_features,
                fingerprint=dataset.fingerprint,
            )
            kb.import_metafeatures(result.to_frame(stored_as))
        echo_note(f"Saved {len(result)} metafeatures of {stored_as!r} to {kb.url}.")
    emit(
        frame,
        fmt,
        title=f"Metafeatures of {dataset.name}",
        json_extra={
            "dataset": dataset.name,
            "target": dataset.target,
            "target_reason": dataset.target_reason,
            "task": dataset.task,
            "fingerprint": dataset.fingerprint,
            "timings": dict(result.timings),
        },
    )
