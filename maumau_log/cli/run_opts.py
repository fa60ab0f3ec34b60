"""Options shared by the commands that replay (``--jobs``, ``--engine``, ``--address``) and
their progress bar."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING, Annotated

import typer

from ..run.runners import Outcome, Runner, ShardTask, default_jobs, local_results
from ..run.shard import Shard, ShardFailure
from . import err, fail
from .lazy_console import as_rich

if TYPE_CHECKING:  # rich's progress bar only when one is shown (start-up)
    from rich.progress import Progress

LogPathsArg = Annotated[
    list[str],
    typer.Argument(help="Log files or directories (with --engine ray also URIs: s3://...)."),
]
"""The logs a replaying command reads (``validate``, ``ingest``, ``analyze``)."""

JobsOpt = Annotated[
    int | None,
    typer.Option(
        "--jobs",
        "-j",
        min=1,
        help="Worker processes (default: the cores this process may use). Results are the "
        "same for any number.",
        show_default=False,
    ),
]
EngineOpt = Annotated[
    str,
    typer.Option(
        "--engine",
        help="local (this machine's cores) or ray (a Ray cluster; needs maumau-log\\[ray]).",
    ),
]
AddressOpt = Annotated[
    str | None,
    typer.Option(
        "--address",
        help="The Ray cluster to use (default: RAY_ADDRESS, else a local Ray).",
        show_default=False,
    ),
]
ProgressOpt = Annotated[bool, typer.Option(help="Show a progress bar on stderr.")]
"""``--progress/--no-progress`` of the replaying commands (the bar: :func:`shard_progress`)."""

ENGINES = ("local", "ray")


def make_runner(engine: str, jobs: int | None, address: str | None) -> Runner:
    """The runner for ``--engine``/``--jobs``/``--address``, or exit 2 (unknown engine, Ray
    not installed)."""
    if engine not in ENGINES:
        fail(f"--engine must be one of {', '.join(ENGINES)}, not {engine!r}")
    if engine == "ray":
        try:
            from ..run.ray_runner import ray_runner

            return ray_runner(address=address, num_cpus=jobs)
        except ImportError:
            fail("--engine ray needs Ray: pip install 'maumau-log[ray]'")
    n = jobs if jobs is not None else default_jobs()

    def run(shards: Sequence[Shard], task: ShardTask) -> Iterator[Outcome]:
        return local_results(shards, task, n)

    run.workers = n  # type: ignore[attr-defined]  # planning cuts finer (runner_workers)
    run.stages = n > 1  # type: ignore[attr-defined]  # workers write events (runner_stages)
    return run


@contextmanager
def shard_progress(shards: int | None, show: bool) -> Iterator[ShardCounter]:
    """A progress bar of shards, games and events (stderr, terminals only); ``shards``
    None until :meth:`ShardCounter.planned` says (the plan is made as the shards run)."""
    counter = ShardCounter()
    if not show or not err.is_terminal:
        yield counter
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn

    with Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn(
            "{task.completed}{task.fields[of]} shards, {task.fields[games]:,} games, "
            "{task.fields[events]:,} events"
        ),
        TimeElapsedColumn(),
        console=as_rich(err),
        transient=True,
    ) as prog:
        of = "" if shards is None else f"/{shards}"  # planning may still run: no total yet
        task = prog.add_task("replaying", total=shards, games=0, events=0, of=of)
        counter.bar = (prog, task)
        yield counter


class ShardCounter:
    """Counts merged shards for the bar (:func:`shard_progress`)."""

    def __init__(self) -> None:
        self.games = 0
        self.events = 0
        self.bar: tuple[Progress, object] | None = None

    def planned(self, shards: int) -> None:
        """The number of shards is known."""
        if self.bar is not None:
            prog, task = self.bar
            prog.update(task, total=shards, of=f"/{shards}")  # type: ignore[arg-type]

    def __call__(self, res: Outcome) -> None:
        """One shard merged."""
        if not isinstance(res, ShardFailure):
            self.games += res.game_count
            self.events += res.events
        if self.bar is not None:
            prog, task = self.bar
            prog.update(task, advance=1, games=self.games, events=self.events)  # type: ignore[arg-type]
