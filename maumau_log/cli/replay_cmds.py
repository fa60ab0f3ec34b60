"""``validate``, ``simulate`` and ``rules``: the replay side of the command line."""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Annotated, Any

import typer

from ..api.validation import Report
from ..events import Game
from ..events.schema import load_schema
from ..logs.lines import LogReadError
from ..logs.output import open_out as _open_out
from ..rules import (
    PRESET_NAMES,
    UNSUPPORTED_PRESETS,
    RulesetError,
    preset_info,
    read_ruleset_file,
    resolve,
)
from ..run.runners import Runner
from ..run.shard import expand_inputs, is_uri
from . import (
    EXIT_OK,
    EXIT_VIOLATIONS,
    app,
    colours,
    err,
    fail,
    out,
    safe,
)
from .run_opts import (
    AddressOpt,
    EngineOpt,
    JobsOpt,
    LogPathsArg,
    ProgressOpt,
    make_runner,
    shard_progress,
)

RulesOpt = Annotated[
    Path | None,
    typer.Option(
        "--rules",
        help="A TOML ruleset file whose \\[options] table overrides every game's preset "
        "and header options.",
        show_default=False,
    ),
]


def load_rules_file(path: Path | None) -> dict[str, Any] | None:
    """Read ``--rules FILE`` or exit 2 with the located reason."""
    if path is None:
        return None
    try:
        return read_ruleset_file(path)
    except RulesetError as exc:
        fail(str(exc))


def resolve_inputs(paths: Sequence[str | Path], uris: bool = False) -> list[str | Path]:
    """Expand files and directories (and, with ``uris``, pyarrow filesystem URIs) into log
    files (:func:`maumau_log.api.validation.expand_paths`), or exit 2 (missing path, no
    logs, a URI without a runner that reads it)."""
    if not uris and any(is_uri(p) for p in paths):
        fail("a URI input (" + next(str(p) for p in paths if is_uri(p)) + ") needs --engine ray")
    try:
        files = expand_inputs(paths)
    except LogReadError as exc:
        fail(str(exc))
    if not files:
        fail("no log files found in " + ", ".join(str(p) for p in paths))
    return files


class ValidationRun(Report):
    """:class:`maumau_log.api.Report` with the command line's progress bar and readable
    report (the counting and the JSON document are the library's)."""

    def run(  # type: ignore[override]
        self,
        file_options: dict[str, Any] | None,
        files: Sequence[str | Path],
        progress: bool = True,
        runner: Runner | None = None,
        data: bytes | None = None,
        unique_ids: bool = False,
    ) -> None:
        """:meth:`Report.run` with a progress bar on stderr (``progress``)."""
        with shard_progress(None, progress) as tick:
            super().run(
                file_options, files, runner=runner, data=data, on_planned=tick.planned,
                on_shard=tick, unique_ids=unique_ids,
            )  # fmt: skip

    def as_json(self) -> dict[str, Any]:
        """The ``validate --json`` document (:meth:`Report.to_dict`)."""
        return self.to_dict()

    def print_report(self, limit: int = 50) -> None:
        """Print a readable report to stderr: the violations, then a one-line summary."""
        if self.violations:
            err.print(f"[bold]Violations[/] ({len(self.violations)})", highlight=colours(err))
            for v in self.violations[:limit]:
                where = f"{v.file}:{v.line}" if v.line is not None else v.file
                place = f"game {v.game_id or '-'}, event "
                place += "-" if v.event_index is None else str(v.event_index)
                if v.player:
                    place += f", player {v.player}"
                err.print(f"{safe(where)}  {safe(place)}", highlight=False)
                err.print(f"  [bold red]{v.code}[/]: {safe(v.message)}", highlight=False)
                if v.expected:
                    err.print(f"  [dim]legal:[/] {safe(v.expected)}", highlight=False)
                err.print(f"  [dim]rule:  {safe(v.rule)}[/]", highlight=False)
            if len(self.violations) > limit:
                err.print(
                    f"... and {len(self.violations) - limit} more (use --json for all)",
                    highlight=colours(err),
                )
            codes = Counter(v.code for v in self.violations)
            err.print(
                "by code: " + ", ".join(f"{c} {n}" for c, n in codes.most_common()),
                highlight=colours(err),
            )
        if self.partial:
            err.print(
                f"{len(self.partial)} partial-information game(s); checks that could not be "
                "made: " + "; ".join(sorted({u for p in self.partial for u in p["unchecked"]})),
                highlight=False,
                markup=False,
            )
        if self.duplicate_ids:
            shown = ", ".join(self.duplicate_ids[:10])
            more = (
                f" and {len(self.duplicate_ids) - 10} more" if len(self.duplicate_ids) > 10 else ""
            )
            err.print(
                f"[yellow]note:[/] game_id used by more than one game: {safe(shown)}{more} "
                "(ingest stores only the first)",
                highlight=False,
            )
        for gid, places in list(self.conflicting_ids.items())[:limit]:
            err.print(
                f"[bold red]conflict:[/] game_id {safe(repr(gid))} is used by games with "
                f"different content ({safe(', '.join(places))}); a dataset can store only one",
                highlight=False,
            )
        for problem in self.unreadable:
            err.print(f"[bold red]unreadable:[/] {safe(problem)}", highlight=False)
        for problem in self.failed:
            err.print(f"[bold red]failed shard:[/] {safe(problem)}", highlight=False)
        bad = self.violations or self.unreadable or self.failed or self.conflicting_ids
        colour = "red" if bad else "green"
        games = f"{self.games:,} game{'' if self.games == 1 else 's'}"
        err.line(
            f"{games}: {self.valid:,} valid, {self.games - self.valid:,} invalid", f"bold {colour}"
        )


@app.command()
def validate(
    paths: LogPathsArg,
    rules: RulesOpt = None,
    as_json: Annotated[
        bool, typer.Option("--json", help="Print one JSON document on stdout.")
    ] = False,
    progress: ProgressOpt = True,
    jobs: JobsOpt = None,
    engine: EngineOpt = "local",
    address: AddressOpt = None,
) -> None:
    """Replay every game and report each violation with its place and the rule broken.

    Exit 0 when every game is valid, 1 when any violation is found, 2 for usage errors or
    unreadable input, 4 when a shard failed (a worker died).
    """
    file_options = load_rules_file(rules)
    files = resolve_inputs(paths, uris=engine == "ray")
    runner = make_runner(engine, jobs, address)
    run = ValidationRun()
    run.run(file_options, files, progress=progress and not as_json, runner=runner)
    if as_json:
        out.print_json(json.dumps(run.as_json()), highlight=colours(out))
    else:
        run.print_report()
    raise typer.Exit(run.exit_code)


@app.command()
def simulate(
    out_file: Annotated[
        Path, typer.Option("--out", help="Output log (.jsonl, .jsonl.gz or .jsonl.zst).")
    ],
    ruleset: Annotated[str, typer.Option("--ruleset", help="Preset name.")] = "standard",
    players: Annotated[int, typer.Option(min=2, max=10, help="Players per game.")] = 4,
    games: Annotated[int, typer.Option(min=1, help="Games (rounds) to play.")] = 10,
    matches: Annotated[
        int | None,
        typer.Option(
            min=1, help="Play this many whole matches (rounds sharing a match_id) instead."
        ),
    ] = None,
    seed: Annotated[int, typer.Option(help="Seed: the same seed gives the same file.")] = 1,
    options: Annotated[
        str | None, typer.Option(help="Header options as a JSON object, e.g. '{\"hand_size\": 6}'.")
    ] = None,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Worker processes (blocks of 10,000 games each; the same file for any number).",
        ),
    ] = 1,
    bots: Annotated[
        str | None,
        typer.Option(
            metavar="BOT,...",
            help="One bot per seat (random, greedy, mc), seats rotating from game to game; "
            "players are named after their bot (mc-1, mc-2 when one sits twice).",
        ),
    ] = None,
    start: Annotated[
        str | None,
        typer.Option(
            metavar="DATETIME",
            help="With --bots: game g starts at this ISO date-time plus g minutes.",
        ),
    ] = None,
) -> None:
    """Play seeded games with random legal bots and write full-information logs.

    With --bots, the named bots play instead, one per seat (players named after their bot),
    seats rotating from game to game; --start dates game g at start + g minutes.
    """
    from ..bots.sim import simulate_matches, write_simulated

    if bots is not None or start is not None:
        _simulate_bots(out_file, ruleset, players, games, seed, bots, start, matches, options)
        return

    opts: dict[str, Any] | None = None
    if options:
        try:
            opts = json.loads(options)
        except json.JSONDecodeError as exc:
            fail(f"--options is not JSON: {exc}")
    try:
        rules = resolve(ruleset, opts)
    except RulesetError as exc:
        fail(str(exc))
    need = rules.hand_size_for(players) * players + 1
    if need > len(rules.pack):
        fail(
            f"{players} players need {need} cards for the deal and the starter; a "
            f"{rules.preset} pack holds {len(rules.pack)} (options: packs, ranks, hand_size)"
        )
    try:
        simulate_matches(ruleset, players, 1, seed, options=opts) if matches else None
    except ValueError as exc:
        fail(str(exc))
    count, whole = (games, False) if matches is None else (matches, True)
    try:
        with _open_out(out_file) as fh:
            n_games, n_events = write_simulated(
                fh, ruleset, players, count, seed, opts, whole, jobs
            )
    except OSError as exc:
        fail(f"{out_file}: cannot write: {exc.strerror}")
    err.print(
        f"wrote {n_games:,} game{'' if n_games == 1 else 's'}, {n_events:,} events to "
        f"{safe(str(out_file))}",
        highlight=False,
    )


def _simulate_bots(
    out_file: Path,
    ruleset: str,
    players: int,
    games: int,
    seed: int,
    bots: str | None,
    start: str | None,
    matches: int | None,
    options: str | None,
) -> None:
    """``simulate --bots``: the named bots, one per seat (:mod:`maumau_log.bots.seated`)."""
    from ..bots.seated import parse_bots, parse_start, simulate_seated
    from ..bots.sim import write_games

    if bots is None:
        fail("--start is for --bots")
    if matches is not None or options is not None:
        fail("--bots plays single rounds of the preset: no --matches, no --options")
    try:
        names = parse_bots(bots, players)
        when = parse_start(start) if start is not None else None
        resolve(ruleset)
    except (ValueError, RulesetError) as exc:
        fail(str(exc))
    try:
        with _open_out(out_file) as fh:
            n_games, n_events = write_games(simulate_seated(ruleset, names, games, seed, when), fh)
    except OSError as exc:
        fail(f"{out_file}: cannot write: {exc.strerror}")
    err.print(
        f"wrote {n_games:,} game{'' if n_games == 1 else 's'}, {n_events:,} events to "
        f"{safe(str(out_file))}",
        highlight=False,
    )


@app.command("rules")
def rules_cmd(
    preset: Annotated[str | None, typer.Argument(help="A preset name; omit to list them.")] = None,
    rules: RulesOpt = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print the options as JSON.")] = False,
) -> None:
    """List the presets, or print one preset's effective options with what each means."""
    from rich.table import Table  # imported here only: validate's start-up does without it

    if preset is None:
        table = Table(title="Presets", highlight=False)
        table.add_column("preset")
        table.add_column("rules")
        table.add_column("replayed")
        for name in PRESET_NAMES:
            info = preset_info(name)
            unsupported = resolve(name).unsupported()
            table.add_row(
                name,
                info["description"] or "",
                "yes" if not unsupported else "not yet: " + "; ".join(unsupported),
            )
        for name, why in UNSUPPORTED_PRESETS.items():
            table.add_row(name, why, "no")
        out.print(table)
        return
    file_options = load_rules_file(rules)
    try:
        resolved = resolve(preset, None, file_options)
    except RulesetError as exc:
        fail(str(exc))
    options = resolved.options()
    if as_json:
        out.print_json(json.dumps({"preset": resolved.preset, "options": options}))
        return
    info = preset_info(resolved.preset)
    out.print(f"[bold]{resolved.preset}[/]: {info['description']}", highlight=False)
    out.print(f"[dim]{info['section']}[/]", highlight=False)
    for note in info.get("notes") or []:
        out.print(f"  note: {note}", highlight=False)
    described = load_schema("options.schema.json")["properties"]
    table = Table(highlight=False)
    table.add_column("option")
    table.add_column("value")
    table.add_column("meaning", overflow="fold")
    for name, value in options.items():
        table.add_row(name, json.dumps(value), described.get(name, {}).get("description", ""))
    out.print(table)


@app.command("compare")
def compare_cmd(
    server_log: Annotated[Path, typer.Argument(help="The server's full-information log.")],
    seat_log: Annotated[Path, typer.Argument(help="One seat's log of the same game(s).")],
    seat: Annotated[
        str | None,
        typer.Option(help="Whose view the seat log is (default: the header's meta.view)."),
    ] = None,
    as_json: Annotated[bool, typer.Option("--json", help="Print JSON on stdout.")] = False,
) -> None:
    """Compare a seat's log with the server's: the first event where they disagree.

    Games are matched by game_id. Exit 0 when every seat game agrees with the server's,
    1 when one disagrees (or is missing from the server's log), 2 for unreadable input.
    """
    from ..disputes.compare import compare
    from ..replay.driver import read_games

    try:
        server = {evs[0].game_id: evs for _, evs in read_games(server_log)}  # type: ignore[union-attr]
        seats = list(read_games(seat_log))
    except LogReadError as exc:
        fail(str(exc))
    results: list[dict[str, Any]] = []
    for line, evs in seats:
        header = evs[0]
        assert isinstance(header, Game)
        who = seat or (header.meta or {}).get("view")
        if not isinstance(who, str):
            fail(f"{seat_log}:{line}: say whose view this is with --seat (no meta.view)")
        full = server.get(header.game_id)
        if full is None:
            results.append({"game_id": header.game_id, "seat": who, "agree": False,
                            "problem": "not in the server's log"})  # fmt: skip
            continue
        try:
            diff = compare(full, evs, who)
        except ValueError as exc:
            fail(f"{seat_log}:{line}: {exc}")
        row: dict[str, Any] = {"game_id": header.game_id, "seat": who, "agree": diff is None}
        if diff is not None:
            row.update(event_index=diff.index, server=diff.server, seat_event=diff.seat,
                       seat_line=line + diff.index if diff.seat is not None else None)  # fmt: skip
        results.append(row)
    if as_json:
        out.print_json(json.dumps({"games": results}))
    else:
        for row in results:
            row = {k: safe(v) if isinstance(v, str) else v for k, v in row.items()}
            if row["agree"]:
                err.print(f"[green]{row['game_id']}[/] ({row['seat']}): agrees with the server")
            elif "problem" in row:
                err.print(f"[red]{row['game_id']}[/] ({row['seat']}): {row['problem']}")
            else:
                err.print(
                    f"[red]{row['game_id']}[/] ({row['seat']}): first disagreement at event "
                    f"{row['event_index']} (line {row['seat_line']})\n"
                    f"  server shows: {safe(json.dumps(row['server']))}\n"
                    f"  seat logged : {safe(json.dumps(row['seat_event']))}",
                    highlight=False,
                )
    raise typer.Exit(EXIT_OK if all(r["agree"] for r in results) else EXIT_VIOLATIONS)
