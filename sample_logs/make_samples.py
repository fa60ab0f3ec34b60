"""Rebuild every file under ``sample_logs/`` (run: ``python sample_logs/make_samples.py``).

The output is deterministic: the valid games come from the seeded simulator (and one game
written by hand below), the broken logs from those games with exactly one fault each, and
the README from what ``maumau-log validate`` says about them. Run it again when the engine
or the simulator changes, then check that ``tests/test_samples.py`` (whose expected codes,
event indexes and lines are written out by hand on purpose) still agrees.

Each fault is placed by search: the script applies one kind of corruption at every place
of a base game, from the last event backwards, and keeps the latest place where the
validator reports exactly the intended code at the corrupted event. So the fault comes as
late in the game as it can (readable), and the file is known to show its code.
"""

from __future__ import annotations

import copy
import gzip
import json
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import zstandard

from maumau_log.events import encode_event
from maumau_log.replay.driver import Replayer
from maumau_log.rules import resolve
from maumau_log.bots.sim import simulate, simulate_matches
from maumau_log.violations import CODES

HERE = Path(__file__).resolve().parent
VALID = HERE / "valid"
BROKEN = HERE / "violations"
EXAMPLES = Path("/work/shared/examples")

Ev = dict[str, Any]
Line = Ev | str  # an event, or a raw line written as it is (for bad_json)


# ---------------------------------------------------------------------------------------
# Writing


def dumps(item: Line) -> str:
    return item if isinstance(item, str) else json.dumps(item, separators=(",", ":"))


def jsonl(lines: list[Line]) -> bytes:
    return "".join(dumps(x) + "\n" for x in lines).encode()


def write(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    name = path.name
    if name.endswith(".gz"):
        data = gzip.compress(data, compresslevel=9, mtime=0)
    elif name.endswith(".zst"):
        data = zstandard.ZstdCompressor(level=10, write_checksum=True).compress(data)
    path.write_bytes(data)


def validate(path: Path) -> list[dict[str, Any]]:
    """Replay a file; return one dict per game (valid flag, violation)."""
    out = []
    for rep in Replayer().replay_file(path):
        v = rep.violation
        out.append({"game_id": rep.game_id, "valid": rep.valid, "v": v})
    return out


def validate_bytes(data: bytes) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory() as tmp:
        p = Path(tmp) / "probe.jsonl"
        p.write_bytes(data)
        return validate(p)


# ---------------------------------------------------------------------------------------
# Base games


def sim_games(ruleset: str, players: int, seed: int, games: int = 1) -> list[list[Ev]]:
    """Simulated games as lists of plain dicts (keys in the simulator's order)."""
    return [
        [json.loads(encode_event(e)) for e in evs]
        for evs in simulate(ruleset, players, games, seed)
    ]


def sim_game(ruleset: str, players: int, seed: int, index: int = 0) -> list[Ev]:
    return sim_games(ruleset, players, seed, index + 1)[index]


# A classic game for two, written by hand (the FORMAT.md example's deal, played out).
# ana plays 7H, ben serves it; ana wishes diamonds with JS; ben draws and plays JD
# (wishing clubs); ana says "mau" twice; a 9 reverses (with two players the other player
# is next all the same); ana goes out on 10D and collects ben's 53 points.
HANDWRITTEN: list[Ev] = [
    {"type": "game", "format": "maumau-log/1", "game_id": "t7-000123", "ruleset": "classic",
     "players": ["ana", "ben"], "dealer": "ben", "started_at": "2024-05-01T19:30:00Z",
     "meta": {"table": "7", "written_by": "hand, from the FORMAT.md example"}},
    {"type": "deal", "hands": {"ana": ["7H", "JS", "9C", "10D", "QD"],
                               "ben": ["8H", "KD", "AS", "7C", "9H"]},
     "starter": "10H",
     "stock": ["KC", "8C", "JD", "9D", "AH", "QS", "7S", "8D", "10C", "KH", "9S", "AC", "QH",
               "7D", "10S", "JC", "JH", "AD", "8S", "QC", "KS"]},
    {"type": "play", "player": "ana", "cards": ["7H"]},
    {"type": "draw", "player": "ben", "cards": ["KC", "8C"], "reason": "effect"},
    {"type": "play", "player": "ana", "cards": ["JS"]},
    {"type": "suit", "player": "ana", "suit": "D"},
    {"type": "play", "player": "ben", "cards": ["KD"]},
    {"type": "play", "player": "ana", "cards": ["QD"]},
    {"type": "draw", "player": "ben", "cards": ["JD"], "reason": "no_play"},
    {"type": "play", "player": "ben", "cards": ["JD"]},
    {"type": "suit", "player": "ben", "suit": "C"},
    {"type": "play", "player": "ana", "cards": ["9C"]},
    {"type": "mau", "player": "ana", "call": "mau"},
    {"type": "play", "player": "ben", "cards": ["9H"]},
    {"type": "draw", "player": "ana", "cards": ["9D"], "reason": "no_play"},
    {"type": "play", "player": "ana", "cards": ["9D"]},
    {"type": "mau", "player": "ana", "call": "mau"},
    {"type": "draw", "player": "ben", "cards": ["AH"], "reason": "no_play"},
    {"type": "pass", "player": "ben"},
    {"type": "play", "player": "ana", "cards": ["10D"]},
    {"type": "round_end", "winner": "ana", "scores": {"ana": 53, "ben": 0},
     "hands": {"ana": [], "ben": ["8H", "AS", "7C", "KC", "8C", "AH"]}},
]  # fmt: skip


def handwritten() -> list[Ev]:
    """The hand-written game with ``seq`` and ``t`` (optional fields) on every event."""
    out = []
    for i, ev in enumerate(HANDWRITTEN):
        ev = dict(ev)
        ev["seq"] = i
        ev["t"] = 1714591800000 + 7000 * i
        out.append(ev)
    return out


# ---------------------------------------------------------------------------------------
# Following a game: hands, stock and the top card before each event


def track(events: list[Ev], upto: int) -> dict[str, Any]:
    """State of a full log just before event ``upto`` (no checks: the base games are valid)."""
    hands: dict[str, list[str]] = {}
    stock: list[str] = []
    top = ""
    players: list[str] = []
    for ev in events[:upto]:
        t = ev.get("type")
        if t == "game":
            players = list(ev["players"])
        elif t == "deal":
            hands = {p: list(c) for p, c in ev["hands"].items()}
            stock = list(ev.get("stock") or [])
            top = ev["starter"]
        elif t in ("draw", "penalty"):
            for c in ev.get("cards") or []:
                hands[ev["player"]].append(c)
                stock.remove(c)
        elif t == "play":
            for c in ev["cards"]:
                hands[ev["player"]].remove(c)
            top = ev["cards"][-1]
        elif t == "reshuffle":
            stock = list(ev.get("stock") or [])
    return {"hands": hands, "stock": stock, "top": top, "players": players}


def rank(card: str) -> str:
    return card[:-1]


def suit(card: str) -> str:
    return card[-1]


def other(players: list[str], p: str) -> str:
    return next(q for q in players if q != p)


# ---------------------------------------------------------------------------------------
# Corruptions: each returns (the broken lines, the event index of the fault, a note) for a
# place ``i`` of the base game, or None where it does not apply.

Fault = tuple[list[Line], int, str] | None


def at_play(fn: Callable[[list[Ev], int, dict[str, Any]], Fault]) -> Callable[..., Fault]:
    def wrapped(ev: list[Ev], i: int) -> Fault:
        if ev[i].get("type") != "play":
            return None
        return fn(ev, i, track(ev, i))

    return wrapped


def replace(ev: list[Ev], i: int, new: Line) -> list[Line]:
    out: list[Line] = list(copy.deepcopy(ev))
    out[i] = new
    return out


def f_bad_json(ev: list[Ev], i: int) -> Fault:
    if ev[i]["type"] != "play":
        return None
    text = dumps(ev[i])[:-1]  # the closing brace is lost
    return replace(ev, i, text), i, f"line {i + 1} lost its closing brace: {text}"


def f_schema_error(ev: list[Ev], i: int) -> Fault:
    if ev[i]["type"] != "play":
        return None
    new = dict(ev[i], cards=ev[i]["cards"][0])
    return replace(ev, i, new), i, f"`cards` is a string, not a list: {dumps(new)}"


def f_bad_seq(ev: list[Ev], i: int) -> Fault:
    if i < 2 or ev[i]["type"] == "round_end":
        return None
    out: list[Line] = [dict(e, seq=n) for n, e in enumerate(ev)]
    out[i] = dict(ev[i], seq=i - 1)
    return out, i, f"every event carries `seq`; event {i} repeats seq {i - 1}"


def f_missing_header(ev: list[Ev], i: int) -> Fault:
    if i != 0:
        return None
    return list(ev[1:]), 0, "the `game` header line is missing: the file starts with the deal"


def f_unknown_ruleset(ev: list[Ev], i: int) -> Fault:
    if i != 0:
        return None
    return (
        replace(ev, 0, dict(ev[0], ruleset="mau-mau-deluxe")),
        0,
        ('the header names the preset "mau-mau-deluxe", which does not exist'),
    )


def f_bad_option(ev: list[Ev], i: int) -> Fault:
    if i != 0:
        return None
    return (
        replace(ev, 0, dict(ev[0], options={"hand_size": "five"})),
        0,
        ('the header overrides `hand_size` with the string "five" (an integer is required)'),
    )


def f_wrong_starter(ev: list[Ev], i: int) -> Fault:
    if i != 0 or rank(ev[1]["starter"]) != "J":
        return None
    # the header's shuffle seed is left out (allowed): with it, the option would change the
    # deal the seed gives, and the first fault would be deal_not_from_seed
    header = {k: v for k, v in ev[0].items() if k != "shuffle"}
    note = (
        'the header sets `starter_redeal = ["J"]` (a Jack turned as the starter goes back '
        f"into the stock), yet the deal keeps {ev[1]['starter']} as the starter (the header "
        "has no shuffle seed)"
    )
    return replace(ev, 0, dict(header, options={"starter_redeal": ["J"]})), 1, note


@at_play
def f_unknown_card(ev: list[Ev], i: int, st: dict[str, Any]) -> Fault:
    card = "6" + suit(ev[i]["cards"][0])
    new = dict(ev[i], cards=[card])
    return (
        replace(ev, i, new),
        i,
        (f"{ev[i]['player']} plays {card}: there are no sixes in the 32-card pack"),
    )


@at_play
def f_card_not_in_hand(ev: list[Ev], i: int, st: dict[str, Any]) -> Fault:
    p = ev[i]["player"]
    top = st["top"]
    held = st["hands"][p]
    for q, cards in sorted(st["hands"].items()):
        for c in cards:
            if (
                q != p
                and c not in held
                and rank(c) != "J"
                and (rank(c) == rank(top) or suit(c) == suit(top))
            ):
                new = dict(ev[i], cards=[c])
                return (
                    replace(ev, i, new),
                    i,
                    (f"{p} plays {c}, a card that {q} holds (it would match {top})"),
                )
    return None


@at_play
def f_card_does_not_match(ev: list[Ev], i: int, st: dict[str, Any]) -> Fault:
    p = ev[i]["player"]
    top = st["top"]
    for c in st["hands"][p]:
        if rank(c) not in ("J", rank(top)) and suit(c) != suit(top):
            new = dict(ev[i], cards=[c])
            return replace(ev, i, new), i, f"{p} plays {c} on {top} instead of {ev[i]['cards'][0]}"
    return None


@at_play
def f_wrong_player(ev: list[Ev], i: int, st: dict[str, Any]) -> Fault:
    p = ev[i]["player"]
    q = other(st["players"], p)
    top = st["top"]
    for c in st["hands"][q]:
        if rank(c) != "J" and (rank(c) == rank(top) or suit(c) == suit(top)):
            new = dict(ev[i], player=q, cards=[c])
            return (
                replace(ev, i, new),
                i,
                (f"{q} plays {c} (it would match {top}), but it is {p}'s turn"),
            )
    return None


def f_wrong_draw_count(ev: list[Ev], i: int) -> Fault:
    e = ev[i]
    if e["type"] != "draw" or e.get("reason") != "effect" or len(e.get("cards") or []) != 2:
        return None
    new = dict(e, cards=e["cards"][:1])
    return replace(ev, i, new), i, f"{e['player']} serves a 7 by drawing one card, not two"


def f_draw_not_from_stock_top(ev: list[Ev], i: int) -> Fault:
    e = ev[i]
    if e["type"] != "draw" or len(e.get("cards") or []) != 1:
        return None
    st = track(ev, i)
    if len(st["stock"]) < 2:
        return None
    wrong = st["stock"][-1]
    new = dict(e, cards=[wrong])
    return (
        replace(ev, i, new),
        i,
        (
            f"{e['player']} draws {wrong} (the bottom card of the stock); the top card is "
            f"{st['stock'][0]}"
        ),
    )


def f_missing_suit_choice(ev: list[Ev], i: int) -> Fault:
    if ev[i]["type"] != "suit" or i + 1 >= len(ev):
        return None
    out: list[Line] = list(copy.deepcopy(ev))
    del out[i]
    return (
        out,
        i,
        (
            f"the `suit` event after {ev[i - 1]['player']}'s {ev[i - 1]['cards'][0]} is missing; "
            f"the next event ({ev[i + 1]['type']} by {ev[i + 1].get('player')}) comes instead"
        ),
    )


def f_duplicate_card(ev: list[Ev], i: int) -> Fault:
    if i != 1:
        return None
    deal = copy.deepcopy(ev[1])
    first = sorted(deal["hands"])[0]
    twice = deal["hands"][first][0]
    lost = deal["stock"][-1]
    deal["stock"][-1] = twice
    return (
        replace(ev, 1, deal),
        1,
        (f"the last stock card is {twice}, which {first} was already dealt ({lost} is missing)"),
    )


def f_bad_reshuffle(ev: list[Ev], i: int) -> Fault:
    e = ev[i]
    if e["type"] != "reshuffle" or not e.get("stock"):
        return None
    new = dict(e, stock=e["stock"][:-1])
    return (
        replace(ev, i, new),
        i,
        (f"the new stock leaves out {e['stock'][-1]} from the discard pile"),
    )


def f_missed_penalty(ev: list[Ev], i: int) -> Fault:
    e = ev[i]
    if e["type"] != "draw" or e.get("reason") != "effect":
        return None
    st = track(ev, i)
    p = e["player"]
    top = st["top"]
    for c in st["hands"][p]:
        if rank(c) not in ("J", "7") and suit(c) == suit(top):
            new = {"type": "play", "player": p, "cards": [c]}
            return (
                replace(ev, i, new),
                i,
                (f"{p} plays {c} on {top} instead of drawing the two cards it owes"),
            )
    return None


def f_wrong_penalty(ev: list[Ev], i: int) -> Fault:
    e = ev[i]
    if e["type"] != "play" or i < 3:
        return None
    st = track(ev, i)
    p = e["player"]
    q = other(st["players"], p)
    if len(st["hands"][p]) < 3:
        return None
    size = resolve(ev[0]["ruleset"]).call_penalty
    new = {"type": "penalty", "player": p, "reason": "missed_call", "by": q,
           "cards": st["stock"][:size]}  # fmt: skip
    out: list[Line] = list(copy.deepcopy(ev))
    out.insert(i, new)
    return (
        out,
        i,
        (
            f"{q} catches {p} for a missed call, but {p} holds {len(st['hands'][p])} cards and "
            "owed no call"
        ),
    )


def f_wrong_winner(ev: list[Ev], i: int) -> Fault:
    e = ev[i]
    if e["type"] != "round_end" or e.get("winner") is None:
        return None
    st = track(ev, i)
    q = other(st["players"], e["winner"])
    return (
        replace(ev, i, dict(e, winner=q)),
        i,
        (f"round_end names {q} the winner; {e['winner']} emptied the hand"),
    )


def f_wrong_score(ev: list[Ev], i: int) -> Fault:
    e = ev[i]
    if e["type"] != "round_end" or not e.get("scores") or e.get("winner") is None:
        return None
    scores = dict(e["scores"])
    w = e["winner"]
    scores[w] -= 10
    return (
        replace(ev, i, dict(e, scores=scores)),
        i,
        (f"round_end gives {w} {scores[w]} points; the cards left are worth {e['scores'][w]}"),
    )


def f_illegal_pass(ev: list[Ev], i: int) -> Fault:
    e = ev[i]
    if e["type"] != "play" or ev[i - 1]["type"] == "draw":
        return None
    out: list[Line] = list(copy.deepcopy(ev))
    out.insert(i, {"type": "pass", "player": e["player"]})
    return out, i, f"{e['player']} passes without drawing first (then plays on)"


def f_play_after_round_end(ev: list[Ev], i: int) -> Fault:
    if i != len(ev) - 1:
        return None
    st = track(ev, i)
    w = ev[i]["winner"]
    q = other(st["players"], w)
    c = st["hands"][q][0]
    out: list[Line] = [*copy.deepcopy(ev), {"type": "play", "player": q, "cards": [c]}]
    return out, len(ev), f"{q} plays {c} after round_end"


def f_round_not_finished(ev: list[Ev], i: int) -> Fault:
    if i != len(ev) - 1:
        return None
    return (
        list(copy.deepcopy(ev[:-1])),
        len(ev) - 1,
        ("the round_end line is missing: the file ends after the winning play"),
    )


def f_unsupported_rule(ev: list[Ev], i: int) -> Fault:
    e = ev[i]
    if e["type"] != "draw" or not e.get("cards"):
        return None
    out: list[Line] = list(copy.deepcopy(ev))
    out[0] = {k: v for k, v in ev[0].items() if k != "shuffle"}
    out[1] = {k: v for k, v in ev[1].items() if k != "stock"}
    out[i] = {k: v for k, v in e.items() if k != "cards"} | {"count": len(e["cards"])}
    note = (
        "the header has no shuffle seed and the deal no stock order (both allowed), and "
        f"{e['player']}'s draw gives only a count ({len(e['cards'])}): this version cannot "
        "know the cards drawn"
    )
    return out, i, note


def f_bad_commitment(ev: list[Ev], i: int) -> Fault:
    if i != 0 or not ev[0].get("shuffle"):
        return None
    shuf = dict(ev[0]["shuffle"])
    c = shuf["commitment"]
    shuf["commitment"] = ("0" if c[0] != "0" else "1") + c[1:]
    return (
        replace(ev, 0, dict(ev[0], shuffle=shuf)),
        0,
        (
            "the first hex digit of the header's shuffle commitment is changed: it is no longer "
            "the SHA-256 of the revealed seed"
        ),
    )


def f_deal_not_from_seed(ev: list[Ev], i: int) -> Fault:
    if i != 1 or not ev[0].get("shuffle"):
        return None
    deal = copy.deepcopy(ev[1])
    stock = deal["stock"]
    stock[-1], stock[-2] = stock[-2], stock[-1]
    return (
        replace(ev, 1, deal),
        1,
        (
            f"the last two stock cards ({stock[-1]}, {stock[-2]}) are swapped: a deal the "
            "header's shuffle seed does not give (no one ever draws them)"
        ),
    )


# Match faults: the base is a whole match (round headers carry match_id and round)


def headers(ev: list[Ev]) -> list[int]:
    return [n for n, e in enumerate(ev) if e.get("type") == "game"]


def f_wrong_total(ev: list[Ev], i: int) -> Fault:
    e = ev[i]
    if e["type"] != "match_end":
        return None
    totals = dict(e["totals"])
    w = e["winner"]
    totals[w] += 10
    return (
        replace(ev, i, dict(e, totals=totals)),
        i - headers(ev)[-1],
        (f"match_end gives {w} a total of {totals[w]}; the rounds add up to {e['totals'][w]}"),
    )


def f_match_not_over(ev: list[Ev], i: int) -> Fault:
    if ev[i]["type"] != "match_end":
        return None
    out: list[Line] = list(copy.deepcopy(ev))
    del out[i]
    return out, i - headers(ev)[-1], ("the match_end line after the deciding round is missing")


def f_match_over_too_early(ev: list[Ev], i: int) -> Fault:
    starts = headers(ev)
    if i != starts[1] - 1:
        return None
    end = ev[i]
    w = max(end["scores"], key=lambda p: end["scores"][p])
    new = {"type": "match_end", "totals": dict(end["scores"]), "winner": w}
    out: list[Line] = [*copy.deepcopy(ev[: i + 1]), new]
    return (
        out,
        i + 1,
        (
            f"match_end after round 1, with totals {end['scores']}: nobody has reached the "
            "target of 150"
        ),
    )


def f_wrong_round(ev: list[Ev], i: int) -> Fault:
    starts = headers(ev)
    if i not in starts[1:]:
        return None
    n = ev[i]["round"]
    return (
        replace(ev, i, dict(ev[i], round=n + 1)),
        0,
        (f"the header of the match's round {n} says round {n + 1}"),
    )


# ---------------------------------------------------------------------------------------
# Building the broken logs

Plan = list[tuple[str, Callable[[list[Ev], int], Fault]]]

PLANS: dict[str, Plan] = {
    "classic": [
        ("bad_json", f_bad_json),
        ("schema_error", f_schema_error),
        ("bad_option", f_bad_option),
        ("card_not_in_hand", f_card_not_in_hand),
        ("wrong_player", f_wrong_player),
        ("wrong_draw_count", f_wrong_draw_count),
        ("duplicate_card", f_duplicate_card),
        ("missed_penalty", f_missed_penalty),
        ("wrong_score", f_wrong_score),
        ("illegal_pass", f_illegal_pass),
        ("play_after_round_end", f_play_after_round_end),
        ("unsupported_rule", f_unsupported_rule),
        ("bad_commitment", f_bad_commitment),
        ("deal_not_from_seed", f_deal_not_from_seed),
    ],
    "standard": [
        ("bad_seq", f_bad_seq),
        ("missing_header", f_missing_header),
        ("unknown_ruleset", f_unknown_ruleset),
        ("unknown_card", f_unknown_card),
        ("card_does_not_match", f_card_does_not_match),
        ("draw_not_from_stock_top", f_draw_not_from_stock_top),
        ("missing_suit_choice", f_missing_suit_choice),
        ("wrong_penalty", f_wrong_penalty),
        ("wrong_winner", f_wrong_winner),
        ("round_not_finished", f_round_not_finished),
    ],
    "jack": [("wrong_starter", f_wrong_starter)],
    "reshuffle": [("bad_reshuffle", f_bad_reshuffle)],
    "match": [
        ("wrong_round", f_wrong_round),
        ("wrong_total", f_wrong_total),
        ("match_not_over", f_match_not_over),
        ("match_over_too_early", f_match_over_too_early),
    ],
}

SEEDS = range(1, 100)


def candidates(kind: str) -> list[tuple[int, int, list[Ev]]]:
    """Base games for ``kind``, shortest first: (length, seed, events)."""
    out = []
    for seed in SEEDS:
        if kind == "match":
            rounds = list(simulate_matches("classic", 2, 1, seed))
            ev = [json.loads(encode_event(e)) for r in rounds for e in r]
        else:
            ev = sim_game("standard" if kind in ("standard", "jack") else "classic", 2, seed)
            if kind == "jack" and rank(ev[1]["starter"]) != "J":
                continue
            if kind == "reshuffle" and not any(e["type"] == "reshuffle" for e in ev):
                continue
        out.append((len(ev), seed, ev))
    out.sort(key=lambda c: (c[0], c[1]))
    return out


def with_ids(lines: list[Line], code: str) -> list[Line]:
    """Name the game(s) of a sample after its code (``-r1``, ``-r2`` for match rounds), and
    its match too."""
    heads = [n for n, x in enumerate(lines) if isinstance(x, dict) and x.get("type") == "game"]
    out = list(lines)
    for k, n in enumerate(heads):
        suffix = f"-r{k + 1}" if len(heads) > 1 else ""
        out[n] = dict(out[n], game_id=f"sample-{code}{suffix}")  # type: ignore[arg-type]
        if "match_id" in out[n]:  # type: ignore[operator]
            # matches are followed across files: each sample has its own
            out[n]["match_id"] = f"sample-{code}"  # type: ignore[index]
    return out


def place(code: str, base: list[Ev], fault: Callable[[list[Ev], int], Fault]) -> dict | None:
    """The latest place where ``fault`` makes the validator report exactly ``code`` there."""
    for i in range(len(base) - 1, -1, -1):
        made = fault(base, i)
        if made is None:
            continue
        lines, index, note = made
        data = jsonl(with_ids(lines, code))
        got = validate_bytes(data)
        bad = [g for g in got if not g["valid"]]
        if len(bad) == 1 and bad[0]["v"].code == code and bad[0]["v"].event_index == index:
            return {"data": data, "note": note}
    return None


BAD_NOTATION = """\
# A transcription with a typo: "plyas" is no verb of the notation (docs/reference/notation.md).
game sample-bad_notation
ruleset: standard
players: ana ben
dealer: ben
hand ana 9H 7H KS QC 10D
hand ben 9C 7C 8S JD AH
starter 10H
stock KC QS 9D 8C AS 10C 7D JH QD 8H KD 9S AC 10S 7S 8D QH JC KH AD JS
ana plays 9H
ben plyas 9C
ana plays QC
"""


def build_broken() -> tuple[dict[str, dict[str, Any]], dict[str, int]]:
    """Every broken log (file name to its bytes and a note) and the base seed of each kind."""
    files: dict[str, dict[str, Any]] = {}
    seeds: dict[str, int] = {}
    bases: dict[str, list[Ev]] = {}
    for kind, plan in PLANS.items():
        for _, seed, base in candidates(kind):
            made = {code: place(code, base, fault) for code, fault in plan}
            if all(made.values()):
                seeds[kind] = seed
                bases[kind] = base
                files.update({f"{code}.jsonl": m for code, m in made.items() if m})
                break
        else:
            raise SystemExit(f"no {kind} base game in seeds {SEEDS} takes all its faults")
    # truncated_file: the standard base gzipped, the compressed file cut at nine tenths
    whole = jsonl(with_ids(list(bases["standard"]), "truncated_file"))
    packed = gzip.compress(whole, compresslevel=9, mtime=0)
    files["truncated_file.jsonl.gz"] = {
        "raw": packed[: len(packed) * 9 // 10],
        "note": f"the `standard` base game gzipped, the compressed bytes cut after "
        f"{len(packed) * 9 // 10} of {len(packed)}",
    }
    # bad_notation: a hand transcription (issue 13) with a misspelt verb
    files["bad_notation.mm"] = {
        "raw": BAD_NOTATION.encode(),
        "note": "a game written by hand in the `.mm` notation with a line it does not allow "
        "(`ben plyas 9C`: no such verb)",
    }
    # not_a_log: a small binary file with a log's name
    files["not_a_log.jsonl"] = {
        "raw": bytes.fromhex("89504e470d0a1a0a0000000d49484452") + bytes(range(256)),
        "note": "a binary file (a PNG header and bytes 0-255) named like a log",
    }
    return files, seeds


# ---------------------------------------------------------------------------------------
# README


OTHER = {
    "classic_other_engine.jsonl": "two games by another Mau-Mau program (a copy of "
    "/work/shared/examples), converted to the format: preset `classic` with that program's "
    "options in the header (only the card just drawn may be played, serving a 7 ends the "
    "turn)",
    "standard_other_engine.jsonl": "two games by another Mau-Mau program (a copy of "
    "/work/shared/examples): preset `standard` with that program's options in the header "
    "(the player who serves a 7 still plays, no Jack on a Jack, a drawn card is never "
    "played, no calls)",
}

README_HEAD = """\
# Sample logs

Small logs to read and to try the tool on. `python sample_logs/make_samples.py` rebuilds
every file here (deterministically) and this README; `tests/test_samples.py` checks them.

```sh
maumau-log validate sample_logs/valid        # exit 0: every game valid
maumau-log validate sample_logs/violations   # exit 1: one violation per file
maumau-log validate --json sample_logs/violations/wrong_score.jsonl
```

Every file is JSON Lines (FORMAT.md): one event per line, a game runs from its `game`
header to the next header. Players of simulated games are `p1`, `p2`, ... in seat order;
`dealer` sits before the first player. Simulated headers carry `meta.seed`: rerun
`maumau-log simulate --ruleset RULESET --players N --games G --seed SEED --out FILE` (or
`--matches 1` for the match) to get the same games byte for byte. Their decks come from the
provably fair shuffle: the header's `shuffle` object holds the seed and its commitment.

## valid/: games that replay with no violation

| file | what is in it | `maumau-log validate` |
| --- | --- | --- |
"""

README_BROKEN = """
## violations/: one broken game per violation code

Each file is a short two-player game (`standard` or `classic`) with exactly one deliberate
fault, named after the violation code it shows; the match codes use a two-round `classic`
match. The script puts each fault as late in its base game as it will go. Base games (the
shortest simulated ones, seeds 1-99, that take all their faults): {bases}. "event" is the
event's index in its game (the header is 0); "line" is the line in the file; "game" is the
`game_id` the violation names.

| file | the fault | code | game | event | line |
| --- | --- | --- | --- | --- | --- |
"""

README_DISPUTES = """
## disputes/: three disputes written by hand in the notation

Games as a referee would transcribe them from a score sheet or a player's memory, in the
`.mm` notation (docs/reference/notation.md): a header block, the deal, then one line per event.
`validate` reads them directly; `convert` turns them into JSON Lines; each file's first
lines say what is disputed and which command settles it.

| file | the dispute | `maumau-log validate` |
| --- | --- | --- |
| `disputes/standard_seven_on_seven.mm` | `standard`, ana and ben: ana answers ben's 7 with her own 7 (`draw_answer = none`: she must draw two) | `missed_penalty` at event 6, line 22 |
| `disputes/classic_missed_mau.mm` | `classic`, three players: ben goes down to one card without "Mau" and cleo catches it at once (a penalty `by`); then ben wins | 1 game, all valid |
| `disputes/online_seat_view.mm` | `online`, ana's own seat log: ben's hand and draws are unknown cards (`?5`, `?1`); ana says ben put a club on her king of diamonds | `card_does_not_match` at event 8, line 22 (a partial log) |
"""

README_TAIL = """
Not here: `line_too_long` (a line over 64 MiB; too big to ship, see
`tests/test_bad_input.py` for long lines).
"""


def shortest(ruleset: str, players: int, games: int = 1) -> tuple[int, list[Ev]]:
    """The seed (1-99) whose first ``games`` games are shortest, and those games' events."""
    best: tuple[int, int, list[Ev]] | None = None
    for seed in SEEDS:
        ev = [e for g in sim_games(ruleset, players, seed, games) for e in g]
        if best is None or len(ev) < best[0]:
            best = (len(ev), seed, ev)
    assert best is not None
    return best[1], best[2]


def main() -> None:
    for d in (VALID, BROKEN):
        if d.exists():
            shutil.rmtree(d)
    # -- valid games
    valid: list[tuple[str, bytes, str]] = []

    def sim_file(name: str, ruleset: str, players: int, games: int, what: str) -> None:
        seed, ev = shortest(ruleset, players, games)
        n = "one" if games == 1 else "two"
        what = f"{n} `{ruleset}` game{'s' if games > 1 else ''} for {players} players " + (
            f"(seed {seed}){what}"
        )
        valid.append((name, jsonl(list(ev)), what))

    sim_file("standard_2p.jsonl", "standard", 2, 2, "")
    sim_file("standard_3p.jsonl.zst", "standard", 3, 1, ", zstd-compressed")
    sim_file("standard_4p.jsonl", "standard", 4, 1, "")
    sim_file("classic_3p.jsonl", "classic", 3, 1, ": scores in round_end")
    sim_file("classic_5p.jsonl.gz", "classic", 5, 1, ", gzip-compressed")
    _, seed, ev = candidates("reshuffle")[0]
    valid.append((
        "classic_2p_reshuffle.jsonl",
        jsonl(list(ev)),
        f"a longer `classic` game for 2 players (seed {seed}): the stock runs out and the "
        "discard pile is reshuffled (`reshuffle` event)",
    ))  # fmt: skip
    _, seed, ev = candidates("match")[0]
    valid.append((
        "classic_2p_match.jsonl",
        jsonl(list(ev)),
        f"a whole `classic` match for 2 players (`simulate --matches 1`, seed {seed}): rounds "
        "share a `match_id`, the last one ends with `match_end` (first to 150)",
    ))  # fmt: skip
    valid.append((
        "classic_2p_handwritten.jsonl",
        jsonl(list(handwritten())),
        "written by hand: the FORMAT.md example's deal played out (ana and ben, `classic`), "
        "with the optional `seq` and `t` on every event and `scores` in round_end; "
        "see the comment in make_samples.py for the story",
    ))  # fmt: skip
    # one game of every other preset (issue 5): a simulated game of about 50 events
    for preset in ("online", "online-penalty", "prsi", "pesten", "puque", "russian", "faraon",
                   "neuner", "serbian", "crazy-eights"):  # fmt: skip
        players = 4 if preset == "serbian" else 3
        best: tuple[int, list[Line]] | None = None
        for s in range(1, 60):
            events = next(simulate(preset, players, 1, s, id_prefix=f"sample-{preset}"))
            game = [json.loads(encode_event(ev)) for ev in events]
            if best is None or abs(len(game) - 50) < abs(len(best[1]) - 50):
                best = (s, game)
        assert best is not None
        valid.append((
            f"presets/{preset}.jsonl",
            jsonl(best[1]),
            f"one `{preset}` game for {players} players (seed {best[0]}, about 50 events)",
        ))  # fmt: skip
    for name, data, _ in valid:
        write(VALID / name, data)
    for src in sorted(EXAMPLES.glob("*.jsonl")):
        (VALID / "other_engines").mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, VALID / "other_engines" / src.name)
        valid.append((f"other_engines/{src.name}", src.read_bytes(), OTHER[src.name]))

    rows = []
    for name, _, what in valid:
        got = validate(VALID / name)
        bad = [g for g in got if not g["valid"]]
        if bad:
            raise SystemExit(f"valid/{name} does not validate: {bad[0]['v']}")
        n = len(got)
        rows.append(f"| `{name}` | {what} | {n} game{'s' if n > 1 else ''}, all valid |")

    # -- broken games
    broken, seeds = build_broken()
    brows = []
    for name, made in sorted(broken.items()):
        path = BROKEN / name
        if "raw" in made:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(made["raw"])
        else:
            write(path, made["data"])
        got = validate(path)
        bad = [g for g in got if not g["valid"]]
        code = name.split(".")[0]
        assert code in CODES, code
        if len(bad) != 1 or bad[0]["v"].code != code:
            raise SystemExit(f"violations/{name}: expected one {code}, got {got}")
        v = bad[0]["v"]
        ev_ = "-" if v.event_index is None else str(v.event_index)
        line = "-" if v.line is None else str(v.line)
        gid = "-" if v.game_id is None else f"`{v.game_id}`"
        brows.append(f"| `{name}` | {made['note']} | `{v.code}` | {gid} | {ev_} | {line} |")
        print(f"    {name!r}: ({v.code!r}, {v.game_id!r}, {v.event_index!r}, {v.line!r}),")

    missing = set(CODES) - {n.split(".")[0] for n in broken} - {"line_too_long"}
    if missing:
        raise SystemExit(f"no sample for {sorted(missing)}")
    names = {
        "classic": "`classic` (one game)",
        "standard": "`standard` (one game)",
        "jack": "`standard` with a Jack starter (for `wrong_starter`)",
        "reshuffle": "`classic` with a reshuffle (for `bad_reshuffle`)",
        "match": "a `classic` match (`--matches 1`, for the match codes)",
    }
    bases = "; ".join(f"{names[k]} seed {seed}" for k, seed in seeds.items())
    readme = README_HEAD + "\n".join(rows) + "\n" + README_BROKEN.format(bases=bases)
    readme += "\n".join(brows) + "\n" + README_DISPUTES + README_TAIL
    (HERE / "README.md").write_text(readme)


if __name__ == "__main__":
    sys.exit(main())
