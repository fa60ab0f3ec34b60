"""The end of the round and of the match: ``round_end``, ``match_end``, ``abandon``
(RULES.md: the first player to empty the hand ends the round; FORMAT.md Events
(round_end, match_end); PRESETS.md rulings 13 (scores), 14 (matches) and 16).

The winner, the final hands and the claimed scores are checked against the replay; the
round's scores, the match totals and its end come from :mod:`maumau_log.scoring.rounds`
(:mod:`maumau_log.scoring.matches` names the latter too). Under ``scoring = "none"`` every player
scores 0, and a claimed score is checked all the same (README "How the engine reads the
rules").
"""

from __future__ import annotations

from collections import Counter

from ..cards import Card, canonical, is_card_code
from ..events import Abandon, HandCount, MatchEnd, RoundEnd
from ..scoring.rounds import add_scores, is_over, match_winner, round_scores
from .actions import describe_legal
from .calls import close_window
from .errors import cards_text, fail, per_player
from .state import ENDED, FINISHED, HIDDEN, OUT, PLAY, SETUP, State


def on_abandon(s: State, ev: Abandon) -> None:
    """The round is abandoned: it ends with no winner (FORMAT.md Events (abandon)).

    Raises:
        RuleViolation: ``play_after_round_end`` once the round is over.
    """
    if s.phase in (SETUP, PLAY, OUT):
        s.phase = ENDED
        s.ended_reason = f"abandoned ({ev.reason or 'no reason given'})"
        s.awaiting_suit = None
        return
    fail("play_after_round_end", "abandon after the round was over", "FORMAT.md Events (abandon)")


def on_round_end(s: State, ev: RoundEnd) -> None:
    """Check the claimed winner, final hands and scores; score the round (ruling 13) and
    the match so far (ruling 14).

    Raises:
        RuleViolation: ``round_not_finished``, ``wrong_winner``, ``wrong_score``.
    """
    close_window(s)
    if s.phase in (SETUP, PLAY):
        legal = describe_legal(s) if s.phase == PLAY else "the deal"
        fail(
            "round_not_finished",
            "round_end while the round goes on: no one has emptied the hand"
            + (f" (winner claimed: {ev.winner})" if ev.winner else ""),
            "RULES.md (the first player to empty the hand ends the round)",
            legal,
        )
    winner = s.out_player if s.phase == OUT else None
    if ev.winner != winner:
        fail(
            "wrong_winner",
            f"round_end names {_claim(ev.winner, 'winner')}, but "
            + (
                f"{winner} emptied the hand"
                if winner
                else f"the round ended with no winner ({s.ended_reason})"
            ),
            "FORMAT.md Conventions (round_end.winner)",
            f"winner {winner}" if winner else "no winner (winner null)",
        )
    final = _final_hands(s, ev)
    s.winner = winner
    if any(HIDDEN in h for h in final.values()):
        s.unchecked.add("the round's scores (hands still hidden at the end)")
        s.phase = FINISHED
        return
    scores = round_scores(s.rules, s.players, final, winner, s.last_play)
    s.scores = scores
    match_after_round(s, winner, scores)
    # a claimed score is checked under every system: "none" scores every player 0, so a
    # claim there must list every player with 0 (README "How the engine reads the rules")
    if ev.scores is not None:
        for p in s.players:
            if p not in ev.scores:
                fail(
                    "wrong_score",
                    f"round_end.scores does not list {p}",
                    "PRESETS.md ruling 13 (scores list every player)",
                    per_player(scores),
                )
            if ev.scores[p] != scores[p]:
                fail(
                    "wrong_score",
                    f"round_end.scores gives {p} {ev.scores[p]}, the replay counts "
                    f"{scores[p]} ({s.rules.scoring})",
                    f"option scoring = {s.rules.scoring!r}; PRESETS.md ruling 13",
                    per_player(scores),
                )
    s.phase = FINISHED


def _final_hands(s: State, ev: RoundEnd) -> dict[str, list[Card]]:
    """The final hands: the replayed ones, checked against ``round_end.hands`` when given
    (which may reveal a partial log's hidden cards; ruling 16)."""
    if ev.hands is None:
        return s.hands
    final = dict(s.hands)
    unseen: Counter[Card] | None = None  # made at the first hand that is not the usual case
    for p in s.players:
        claimed = ev.hands.get(p)
        if (
            isinstance(claimed, list)
            and s.unseen is None
            and (claimed == s.hands[p] or sorted(claimed) == sorted(s.hands[p]))
        ):
            continue  # the usual case: the hand as replayed (in its order: no sort), or in another
        if unseen is None:
            unseen = Counter(s.unseen) if s.unseen is not None else Counter()
        held = Counter(s.hands[p])
        hidden = held.pop(HIDDEN, 0)
        if isinstance(claimed, HandCount):
            ok = claimed.count == len(s.hands[p])
        elif claimed is None:
            ok = False
        else:
            shown = Counter(canonical(c) if is_card_code(c) else c for c in claimed)
            extra = shown - held  # what the round end reveals of a hidden hand
            ok = not (held - shown) and sum(extra.values()) == hidden
            if ok and hidden:
                ok = not (extra - unseen)
                unseen -= extra
                final[p] = list(shown.elements())
        if not ok:
            fail(
                "wrong_score",
                f"round_end.hands gives {p} {_hand_text(claimed)}, but {p} holds "
                f"{cards_text(s.hands[p])}",
                "PRESETS.md ruling 16",
                f"{p}: {cards_text(s.hands[p])}",
            )
    return final


def match_after_round(s: State, winner: str | None, scores: dict[str, int]) -> None:
    """Running totals and the match's end after this round (ruling 14). A round with
    no match context counts as round 1 of a match of its own."""
    ctx = s.match
    before = ctx.totals if ctx is not None else {}
    won = dict(ctx.rounds_won) if ctx is not None else {}
    rounds = (ctx.rounds_before if ctx is not None else 0) + 1
    if winner is not None:
        won[winner] = won.get(winner, 0) + 1
    totals = add_scores(before, scores)
    left = list(s.players)
    if s.rules.loser_hand_shrink:
        sizes = ctx.hand_sizes if ctx is not None and ctx.hand_sizes else {}
        base = s.rules.hand_size_for(s.n)
        left = [p for p in s.players if sizes.get(p, base) - (p != winner) > 0]
    s.match_totals = totals
    s.match_rounds_won = won
    s.match_over = is_over(s.rules, totals, rounds, len(left))
    s.match_winner = match_winner(s.rules, s.players, totals, won, left)


def on_match_end(s: State, ev: MatchEnd) -> None:
    """Check a ``match_end``: the match is over, the totals and the winner are right
    (ruling 14).

    Raises:
        RuleViolation: ``round_not_finished``, ``match_over_too_early``, ``wrong_total``,
            ``wrong_winner``.
    """
    if s.phase != FINISHED:
        fail(
            "round_not_finished",
            "match_end before the round's round_end",
            "FORMAT.md Events (match_end)",
        )
    if s.match_end_seen:
        fail("match_over_too_early", "a second match_end", "FORMAT.md Events (match_end)")
    s.match_end_seen = True
    if s.match is not None and not s.match.checked:
        return  # earlier rounds are missing or invalid: nothing to recompute
    rules = s.rules
    end = (
        f"match_target = {rules.match_target}, match_rounds = {rules.match_rounds}, "
        f"scoring = {rules.scoring!r}; PRESETS.md ruling 14"
    )
    totals = s.match_totals or {}
    if not s.match_over:
        fail(
            "match_over_too_early",
            f"match_end after round {s.match.round if s.match else 1}, but no end "
            f"condition is met (totals {per_player(totals)})",
            end,
            "another round",
        )
    if ev.totals is not None:
        for p in s.players:
            if ev.totals.get(p) != totals.get(p, 0):
                fail(
                    "wrong_total",
                    f"match_end.totals gives {p} "
                    + (f"{ev.totals[p]}" if p in ev.totals else "no total")
                    + f", the replay counts {totals.get(p, 0)}",
                    end,
                    per_player(totals),
                )
    if ev.winner != s.match_winner:
        fail(
            "wrong_winner",
            f"match_end names {_claim(ev.winner, 'match winner')}; the replay finds "
            + (f"{s.match_winner}" if s.match_winner else "a draw")
            + f" (totals {per_player(totals)}; rounds won {per_player(s.match_rounds_won)})",
            end + " (highest or lowest total, then most rounds won, then a draw)",
            f"winner {s.match_winner}" if s.match_winner else "no winner (winner null: a draw)",
        )


def _claim(player: str | None, what: str) -> str:
    """A claimed winner as a message names it: ``player ana as the winner``, or ``no
    winner`` (null)."""
    return f"player {player} as the {what}" if player is not None else f"no {what}"


def _hand_text(claimed: object) -> str:
    """A hand as ``round_end.hands`` gives it: its cards, its size, or nothing."""
    if isinstance(claimed, HandCount):
        return f"{claimed.count} cards"
    if isinstance(claimed, list):
        return cards_text(str(c) for c in claimed)
    return "nothing"
