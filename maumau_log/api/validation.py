"""Validation as a library call: :func:`validate` and its :class:`Report`.

``maumau-log validate`` is a thin command over this module: it expands the paths, plans the
shards and runs them exactly as :func:`validate` does, then prints :meth:`Report.to_dict`
(``--json``) or a readable report. Start-up matters here (``validate`` of one small log is
a hot command): this module imports the replay stack only, never Polars or pyarrow.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from typing import Any

from ..events import valid_json
from ..logs.lines import LogReadError
from ..replay.game_ids import GameIdTally
from ..rules import read_ruleset_file
from ..run.plan import SHARD_BYTES, Shard, plan_shards
from ..run.runners import Outcome, Runner, ShardTask, local_results, runner_workers
from ..run.shard import GameOutcome, ShardFailure, expand_inputs, is_uri
from ..violations import Violation

__all__ = ["Report", "expand_paths", "local_runner", "rules_options", "validate"]

PathLike = str | os.PathLike[str]
"""A file or folder name."""


def rules_options(rules: PathLike | Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The options of a ruleset file (``--rules FILE``), or ``rules`` itself when it is
    already a mapping of options, or None.

    Raises:
        RulesetError: the file is missing, not TOML, or sets an unknown option
            (the message says which and where: exit 2 in the CLI).
    """
    if rules is None:
        return None
    if isinstance(rules, Mapping):
        return dict(rules)
    return read_ruleset_file(Path(rules))


def expand_paths(paths: PathLike | Sequence[PathLike], uris: bool = False) -> list[str | Path]:
    """The log files named by ``paths`` (files as given, folders searched for logs).

    Args:
        paths: one path or several; with ``uris``, also pyarrow filesystem URIs
            (``s3://...``, read by a Ray runner).
    Raises:
        LogReadError: a path that does not exist, a URI without ``uris``, or no log file
            found at all (the CLI's exit 2).
    """
    if isinstance(paths, str | os.PathLike):
        paths = [paths]
    given = [p if isinstance(p, str) else Path(p) for p in paths]
    if not uris and any(is_uri(p) for p in given):
        uri = next(str(p) for p in given if is_uri(p))
        raise LogReadError(uri, None, "a URI input needs --engine ray")
    files = expand_inputs(given)
    if not files:
        raise LogReadError(", ".join(str(p) for p in given), None, "no log files found")
    return files


def local_runner(jobs: int) -> Runner:
    """A runner over ``jobs`` local processes (:func:`~maumau_log.run.runners.local_results`;
    ``jobs`` 1 replays in this process)."""

    def run(shards: Sequence[Shard], task: ShardTask) -> Iterator[Outcome]:
        return local_results(shards, task, jobs)

    run.workers = jobs  # type: ignore[attr-defined]  # planning cuts finer (runner_workers)
    run.stages = jobs > 1  # type: ignore[attr-defined]  # workers write events (runner_stages)
    return run


class Report:
    """What a validation found: the numbers, violations and problems of ``validate``.

    Attributes:
        games: games replayed (events outside any game count as one game).
        valid: games that replayed to their ``round_end`` with no violation.
        violations: the first :class:`~maumau_log.violations.Violation` of every invalid
            game, in input order.
        unreadable: files that could not be read (``"path: why"``).
        failed: shards that failed (a worker died), with their file and error.
        partial: partial-information games and the checks their logs did not allow.

    Examples:
        >>> import maumau_log as m
        >>> r = m.validate(["sample_logs/valid/standard_2p.jsonl"])
        >>> (r.ok, r.games, r.valid, r.exit_code)
        (True, 2, 2, 0)
        >>> sorted(r.to_dict())[:3]
        ['conflicting_game_ids', 'duplicate_game_ids', 'failed_shards']
    """

    def __init__(self) -> None:
        self.games = 0
        self.valid = 0
        self.violations: list[Violation] = []
        self.unreadable: list[str] = []
        self.failed: list[str] = []
        self.partial: list[dict[str, Any]] = []
        self._ids = GameIdTally()  # on disk: memory flat in the number of games

    def run(
        self,
        file_options: Mapping[str, Any] | None,
        files: Sequence[str | Path],
        runner: Runner | None = None,
        data: bytes | None = None,
        on_planned: Any = None,
        on_shard: Any = None,
        unique_ids: bool = False,
    ) -> None:
        """Replay ``files`` shard by shard (:mod:`maumau_log.run.shard`) on ``runner``
        (default: this process) and count every game; a file that cannot be opened is
        noted, the others go on.

        Args:
            file_options: options of a ruleset file overriding every game's, or None.
            files: log files (:func:`expand_paths`).
            runner: where the shards run (:func:`local_runner`, Ray), or None.
            data: the content of the one file of ``files``, uncompressed, when the caller
                holds it already (``import --validate`` has just written it): replayed from
                memory, so the file is not read again (a file that planning would cut,
                above twice :data:`~maumau_log.run.plan.SHARD_BYTES`, is read as usual).
            on_planned: called with the number of shards planned so far (progress bars).
            on_shard: called with each shard's outcome (progress bars).
            unique_ids: the caller knows that no two games of ``data`` share a game id
                (``import --validate`` gave each its own): no id repeats, so the games'
                content digests, compared only between games of one id, are not made
                (the same report; 8% of the instructions of an ``import openspiel --validate``
                of 960 games, by callgrind).
        """
        shards: Sequence[Shard]
        small = data is not None and len(data) <= 2 * SHARD_BYTES
        if data is not None and small and len(files) == 1 and runner is None:
            shards = [Shard(0, str(files[0]), data=data)]
            if on_planned is not None:
                on_planned(1)
        else:  # planned as the runner reads them
            shards = plan_shards(files, workers=runner_workers(runner), on_planned=on_planned)
        task = ShardTask(file_options, digest=not (unique_ids and data is not None))
        results = runner(shards, task) if runner is not None else local_results(shards, task, 1)
        for res in results:
            if isinstance(res, ShardFailure):
                self.failed.append(str(res))
            elif res.unreadable is not None:
                self.unreadable.append(str(res.unreadable))
            else:
                for g in res.games:
                    self.add(g)
            if on_shard is not None:
                on_shard(res)

    def add(self, outcome: GameOutcome) -> None:
        """Count one game's outcome."""
        if outcome.game_id is not None or outcome.has_header or not outcome.valid:
            self.games += 1
        if outcome.game_id is not None:
            self._ids.add(outcome.game_id, outcome.content_hash, str(outcome.file), outcome.line)
        if outcome.valid:
            self.valid += 1
        elif outcome.violation is not None:
            self.violations.append(outcome.violation)
        unchecked = outcome.unchecked
        if unchecked:
            self.partial.append(
                {"file": outcome.file, "game_id": outcome.game_id, "unchecked": unchecked}
            )

    @property
    def invalid(self) -> int:
        """Games with a violation."""
        return self.games - self.valid

    @property
    def duplicate_ids(self) -> list[str]:
        """game_ids used by more than one game (ingest would store only the first)."""
        return self._ids.repeated()[0]

    @property
    def conflicting_ids(self) -> dict[str, list[str]]:
        """game_ids used by games with different content (they cannot both be stored): id
        to the places (``file:line``) of each different copy's first appearance."""
        return self._ids.repeated()[1]

    @property
    def exit_code(self) -> int:
        """``validate``'s exit code (docs/reference/exit-codes.md): 4 when a shard failed;
        2 when a file was unreadable and no game was read; 1 when a violation was found, a
        game id is used by games with different content, or a file was unreadable beside
        games that were read; else 0."""
        if self.failed:
            return 4
        if self.unreadable and not self.games:
            return 2
        return 1 if self.violations or self.unreadable or self.conflicting_ids else 0

    @property
    def ok(self) -> bool:
        """True when every game is valid and nothing failed (exit code 0)."""
        return self.exit_code == 0

    def to_dict(self) -> dict[str, Any]:
        """The ``validate --json`` document (every string valid UTF-8 text: a lone
        surrogate, e.g. from a file name that is not UTF-8, is U+FFFD,
        :func:`~maumau_log.events.valid_json`)."""
        return valid_json(
            {
                "games": self.games,
                "valid": self.valid,
                "invalid": self.invalid,
                "violations": [v.to_dict() for v in self.violations],
                "unreadable": self.unreadable,
                "failed_shards": self.failed,
                "partial": self.partial,
                "duplicate_game_ids": self.duplicate_ids,
                "conflicting_game_ids": self.conflicting_ids,
            }
        )

    def __repr__(self) -> str:
        return f"<Report games={self.games} valid={self.valid} exit_code={self.exit_code}>"


def validate(
    paths: PathLike | Sequence[PathLike],
    *,
    rules: PathLike | Mapping[str, Any] | None = None,
    jobs: int = 1,
) -> Report:
    """Replay every game of the files and folders and report each violation: the work of
    ``maumau-log validate`` (the same shards, the same results for any ``jobs``).

    Args:
        paths: log files (``.jsonl``, ``.jsonl.gz``, ``.jsonl.zst``, ``.mm``) and folders.
        rules: a ruleset TOML file whose ``[options]`` override every game's preset and
            header options (``--rules``), or those options as a mapping, or None.
        jobs: local processes (1: this process).
    Returns:
        The :class:`Report`; ``report.to_dict()`` is the ``validate --json`` document.
    Raises:
        LogReadError: a path that does not exist, or no log file found.
        RulesetError: a bad ruleset file.
        ValueError: ``jobs`` below 1.

    Examples:
        >>> import maumau_log as m
        >>> m.validate(["sample_logs/valid"]).ok
        True
        >>> bad = m.validate("sample_logs/violations/card_not_in_hand.jsonl")
        >>> [(v.code, v.event_index) for v in bad.violations]
        [('card_not_in_hand', 12)]
    """
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, not {jobs}")
    options = rules_options(rules)
    files = expand_paths(paths)
    report = Report()
    report.run(options, files, runner=local_runner(jobs) if jobs > 1 else None)
    return report
