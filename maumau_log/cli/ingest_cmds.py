"""The ``ingest`` command, in a module of its own: it imports neither Polars nor Rich's
tables, which the other dataset commands (:mod:`.data_cmds`) print with. Importing Polars
took about 0.2 CPU s of every ingest (a whole process of ``python -c "import polars"``),
about 6% of an ingest of 5,000 games. ``analyze`` (in :mod:`.data_cmds`) runs the same
ingest through :func:`run_ingest` and prints the same summary (:func:`print_ingest`).
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..logs.lines import LogReadError
from ..rules import RulesetError
from ..run.runners import Runner
from ..store import DatasetError
from . import app, err, fail, on_interrupt, safe
from .replay_cmds import RulesOpt, load_rules_file, resolve_inputs
from .run_opts import (
    AddressOpt,
    EngineOpt,
    JobsOpt,
    LogPathsArg,
    ProgressOpt,
    make_runner,
    shard_progress,
)

if TYPE_CHECKING:
    from ..run.ingest import IngestSummary


def ingest(*args: Any, **kwargs: Any) -> IngestSummary:
    """:func:`maumau_log.run.ingest.ingest`, imported when called (``stats`` and ``query``
    start faster without the collector and Arrow compute)."""
    from ..run.ingest import ingest as run

    return run(*args, **kwargs)


def print_ingest(summary: IngestSummary) -> None:
    """Print an ingest's summary on stderr: the unreadable files, the first 50 conflicts
    (with the hint to resolve them), the failed shards, then one line of counts."""
    for problem in summary.unreadable:
        err.print(f"[bold red]unreadable:[/] {safe(problem)}", highlight=False)
    for c in summary.conflicts[:50]:
        err.print(f"[bold red]conflict:[/] {safe(str(c))}", highlight=False)
    for problem in summary.failed:
        err.print(
            f"[bold red]failed shard:[/] {safe(problem)} (its games are not stored; run the "
            "same ingest again to add them)",
            highlight=False,
        )
    if len(summary.conflicts) > 50:
        more = len(summary.conflicts) - 50
        err.print(f"... and {more:,} more conflict{'' if more == 1 else 's'}")
    if summary.conflicts:
        err.print(f"[dim]{safe(summary.conflicts[0].hint(summary.dataset))}[/]", highlight=False)
    rate = summary.events / summary.seconds if summary.seconds else 0.0
    colour = "red" if summary.exit_code else "green"
    games = f"{summary.games:,} game{'' if summary.games == 1 else 's'}"
    n = len(summary.conflicts)
    conflicts = f"{n:,} conflict{'' if n == 1 else 's'}"
    err.print(
        f"[bold {colour}]{games} read ({summary.valid:,} valid, "
        f"{summary.invalid:,} invalid): {summary.added:,} added, {summary.duplicates:,} already "
        f"stored, {conflicts}[/] -> {summary.dataset} "
        f"({summary.events:,} events in {summary.seconds:.1f} s, {rate:,.0f} events/s)",
        highlight=False,
    )


def run_ingest(
    paths: list[str],
    dataset: Path,
    rules: Path | None,
    on_report: Any = None,
    runner: Runner | None = None,
    progress: bool = True,
    uris: bool = False,
    keep_game_ids: bool = True,
) -> IngestSummary:
    """The ingest behind ``ingest`` and ``analyze``: the ``--rules`` file read and the
    inputs resolved (exit 2 on a bad one), a progress bar on stderr when ``progress``, the
    dataset left as it was on Ctrl-C; a dataset, log or ruleset error is one line on
    stderr and exit 2. The other arguments are
    :func:`maumau_log.run.ingest.ingest`'s."""
    file_options = load_rules_file(rules)
    files = resolve_inputs(paths, uris=uris)
    on_interrupt(f"interrupted; the dataset is as it was ({dataset} was not changed)")
    try:
        with shard_progress(None, progress) as tick:
            return ingest(files, dataset, file_options, on_report=on_report, runner=runner,
                          on_shard=tick, on_plan=tick.planned,
                          keep_game_ids=keep_game_ids)  # fmt: skip
    except (DatasetError, LogReadError, RulesetError) as exc:
        fail(str(exc))


@app.command("ingest")
def ingest_cmd(
    paths: LogPathsArg,
    dataset: Annotated[
        Path, typer.Option("--out", "-o", help="The dataset folder (created when missing).")
    ],
    rules: RulesOpt = None,
    jobs: JobsOpt = None,
    engine: EngineOpt = "local",
    address: AddressOpt = None,
    progress: ProgressOpt = True,
) -> None:
    """Replay every game and add it to a Parquet dataset (valid or not).

    Games already stored are skipped; a stored game id met with other content is a conflict
    (reported, not stored). Exit 0 when every game read is valid, 1 when any is invalid or
    conflicts, 2 for usage errors or unreadable input (then nothing is stored), 4 when a
    shard failed (the others are stored; run it again to add the rest).
    """
    runner = make_runner(engine, jobs, address)
    if engine == "local":  # Ray's driver converts with pandas: left as it is
        from ..store.rows import pyarrow_without_pandas

        pyarrow_without_pandas()
    summary = run_ingest(
        paths,
        dataset,
        rules,
        runner=runner,
        progress=progress,
        uris=engine == "ray",
        keep_game_ids=False,  # only analyze ranks them: memory flat in the games
    )
    print_ingest(summary)
    raise typer.Exit(summary.exit_code)
