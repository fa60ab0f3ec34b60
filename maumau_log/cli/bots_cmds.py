"""The ``bots ladder`` and ``review`` commands: thin wrappers over
:mod:`maumau_log.bots.ladder` and :mod:`maumau_log.bots.review`.

Exit codes: 0 done (``review``: no decision judged a mistake); 1 ``review`` found at least
one mistake, or the game is invalid (the review stops at its first violation); 2 a bad
option, an unknown ruleset or bot, a missing file or game, a player not at the table.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Annotated

import typer
from rich import box
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn
from rich.table import Table
from rich.text import Text

from ..bots import BOTS, DEFAULT_ROLLOUTS
from ..bots.ladder import ladder, seat_effect
from ..bots.review import DEFAULT_ROLLOUTS as REVIEW_ROLLOUTS
from ..bots.review import Review, ReviewError, load_events, review_game
from ..rules import RulesetError
from . import EXIT_OK, EXIT_VIOLATIONS, app, clean, err, fail, out
from .frames import _width
from .lazy_console import as_rich
from .tables import short_name

bots_app = typer.Typer(
    help="Bots that play every preset: random, greedy, Monte Carlo (mc).",
    no_args_is_help=True,
)
app.add_typer(bots_app, name="bots")


def _show(table: Table) -> None:
    """A table on stdout: as wide as the terminal (or ``COLUMNS``, also into a pipe), else
    200 columns into a pipe or file (whole rows)."""
    if _width() is not None:
        out.print(table, soft_wrap=False)
    else:
        Console(width=200, soft_wrap=True, highlight=False, emoji=False).print(table)


def _plural(n: int, one: str, many: str) -> str:
    """``"1 mistake"``, ``"2 mistakes"``."""
    return f"{n:,} {one if n == 1 else many}"


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


@bots_app.command("ladder")
def ladder_cmd(
    ruleset: Annotated[str, typer.Option("--ruleset", help="A preset name.")] = "classic",
    players: Annotated[int, typer.Option("--players", help="Seats at the table.")] = 2,
    games: Annotated[int, typer.Option("--games", help="Rounds per pairing.")] = 100,
    seed: Annotated[int, typer.Option("--seed", help="The ladder's seed.")] = 0,
    rollouts: Annotated[
        int, typer.Option("--rollouts", help="The mc bot's rollouts per alternative.")
    ] = DEFAULT_ROLLOUTS,
    bots: Annotated[str, typer.Option("--bots", help="Comma-separated bots to pair.")] = ",".join(
        BOTS
    ),
    jobs: Annotated[int, typer.Option("--jobs", help="Worker processes.")] = 1,
    as_json: Annotated[bool, typer.Option("--json", help="Print the pairings as JSON.")] = False,
) -> None:
    """Play the bots against each other: win rates with 95% Wilson intervals, seat effect.

    Every ordered pair of different bots plays GAMES rounds: one seat is the bot, the others
    the opponent; the bot's seat rotates; the last seat deals. Same arguments, same figures.
    """
    names = [b.strip() for b in bots.split(",") if b.strip()]
    for b in names:
        if b not in BOTS:
            raise typer.BadParameter(
                f"unknown bot {b!r}: one of {', '.join(BOTS)}", param_hint="--bots"
            )
    if len(names) < 2:
        raise typer.BadParameter("name at least two bots", param_hint="--bots")
    for value, hint in (
        (players, "--players"),
        (games, "--games"),
        (rollouts, "--rollouts"),
        (jobs, "--jobs"),
    ):
        if value < (2 if hint == "--players" else 1):
            raise typer.BadParameter("too small", param_hint=hint)
    total = games * len(names) * (len(names) - 1)
    try:
        with Progress(
            TextColumn("ladder"), BarColumn(), TextColumn("{task.completed}/{task.total} games"),
            TimeRemainingColumn(), console=as_rich(err), transient=True,
            disable=not err.is_terminal,
        ) as bar:  # fmt: skip
            task = bar.add_task("ladder", total=total)
            pairings = ladder(
                ruleset, players, games, seed, names, rollouts, jobs,
                progress=lambda n: bar.advance(task, n),
            )  # fmt: skip
    except RulesetError as exc:
        fail(str(exc))
    except ValueError as exc:
        fail(str(exc))
    if as_json:
        sys.stdout.write(json.dumps([p.to_dict() for p in pairings], indent=1) + "\n")
        return
    t = Table(
        title=f"{ruleset}, {players} players, {games} rounds per pairing, seed {seed}, "
        f"mc {rollouts} rollouts",
        box=box.SIMPLE_HEAD,
    )
    for col in ("bot", "opponent", "games", "wins", "win rate", "95% CI", "fair share"):
        t.add_column(col, justify="left" if col in ("bot", "opponent") else "right")
    for p in pairings:
        t.add_row(
            p.bot, p.opponent, str(p.games), str(p.wins), _pct(p.win_rate),
            f"{_pct(p.ci_low)} - {_pct(p.ci_high)}", _pct(p.fair_share),
        )  # fmt: skip
    _show(t)
    rows, pval = seat_effect(pairings)
    s = Table(
        title="Seat effect: wins by seat, every game (seat 1 plays first)", box=box.SIMPLE_HEAD
    )
    for col in ("seat", "games", "wins", "win rate", "95% CI"):
        s.add_column(col, justify="right")
    for r in rows:
        s.add_row(
            str(r.seat),
            str(r.games),
            str(r.wins),
            _pct(r.win_rate),
            f"{_pct(r.ci_low)} - {_pct(r.ci_high)}",
        )
    _show(s)
    if pval is not None:
        out.print(f"chi-square test of equal seats: p = {pval:.3g}")


def _review_table(rev: Review, alternatives: bool) -> Table:
    t = Table(
        title=f"review of {clean(rev.game_id)} ({rev.ruleset}, "
        f"{rev.rollouts} rollouts per alternative)",
        box=box.SIMPLE_HEAD,
        highlight=False,
    )
    for col in ("event", "player", "kind", "chosen", "best", "loss", "95% CI", "verdict"):
        right = col in ("event", "loss", "95% CI")
        t.add_column(col, justify="right" if right else "left", no_wrap=col != "player")
    if alternatives:
        t.add_column("alternatives: win chance", overflow="fold")
    for d in rev.decisions:
        style = {"mistake": "bold red", "inaccuracy": "yellow"}.get(d.verdict, "")
        row: list[str | Text] = [
            str(d.event_index), Text(short_name(d.player)), d.kind, d.chosen, d.best,
            f"{d.loss:.2f}", f"{d.loss_ci_low:.2f} to {d.loss_ci_high:.2f}",
            Text(d.verdict, style=style),
        ]  # fmt: skip
        if alternatives:
            row.append(", ".join(f"{a.action} {a.value:.2f}" for a in d.alternatives))
        t.add_row(*row)
    return t


def _print_review(rev: Review) -> None:
    width = _width()
    t = _review_table(rev, alternatives=True)
    narrow = width is not None and Console(width=1000).measure(t).maximum > width
    if narrow:  # the alternatives' chances are the widest column: --json lists them
        t = _review_table(rev, alternatives=False)
    _show(t)
    if narrow:
        err.print(
            f"[dim]not shown at {width} columns: alternatives: win chance (--json lists "
            "them, or a wider COLUMNS)[/]",
            highlight=False, soft_wrap=False, width=width,
        )  # fmt: skip
    for p, c in sorted(rev.counts().items()):
        err.print(
            Text(f"{clean(p)}: {_plural(c['decisions'], 'decision', 'decisions')}, "
                 f"{_plural(c['mistake'], 'mistake', 'mistakes')}, "
                 f"{_plural(c['inaccuracy'], 'inaccuracy', 'inaccuracies')}"),
        )  # fmt: skip
    err.print(
        f"{_plural(rev.forced, 'forced decision', 'forced decisions')} not listed",
        highlight=False,
    )
    for i, why in rev.skipped:
        err.print(Text(f"event {i} not reviewed: {clean(str(why))}"))
    if rev.violation:
        err.print(
            Text(f"the game is invalid, review stopped at {clean(rev.violation)}"), style="red"
        )


@app.command("review")
def review_cmd(
    source: Annotated[Path, typer.Argument(help="A log file or a dataset folder.")],
    game_id: Annotated[
        str | None,
        typer.Argument(help="The game's id; may be left out when SOURCE holds one game."),
    ] = None,
    player: Annotated[str | None, typer.Option("--player", help="Review only this player.")] = None,
    rollouts: Annotated[
        int, typer.Option("--rollouts", help="Rollouts per alternative (K).")
    ] = REVIEW_ROLLOUTS,
    seed: Annotated[int, typer.Option("--seed", help="The review's seed.")] = 0,
    as_json: Annotated[bool, typer.Option("--json", help="Print one JSON document.")] = False,
) -> None:
    """Value every decision of a game by Monte Carlo rollouts from the player's view.

    Each alternative gets its chance to win (and expected score where the ruleset scores)
    with a 95% interval; a decision is a mistake only when its loss is beyond the noise.

    Exit 1 when a mistake is found or the game is invalid.
    """
    if rollouts < 1:
        raise typer.BadParameter("must be at least 1", param_hint="--rollouts")
    if not source.exists():
        fail(f"{source}: no such file or folder")
    from .dispute_cmds import one_game_id

    game_id = one_game_id(source, game_id)
    try:
        events, rules = load_events(source, game_id)
        rev = review_game(events, rules, player, rollouts, seed)
    except ReviewError as exc:
        fail(str(exc))
    if as_json:
        sys.stdout.write(json.dumps(rev.to_dict(), indent=1) + "\n")
    else:
        _print_review(rev)
    bad = rev.violation is not None or any(d.verdict == "mistake" for d in rev.decisions)
    raise typer.Exit(EXIT_VIOLATIONS if bad else EXIT_OK)
