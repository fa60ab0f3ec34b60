"""Violation codes and the violation record.

Codes are stable: logs, scripts and datasets key on them. Each code's meaning is in
:data:`CODES` and in docs/reference/violations.md.
"""

from __future__ import annotations

from typing import Any

import msgspec

CODES: dict[str, str] = {
    "bad_json": "the line is not valid JSON",
    "bad_notation": "a line of a .mm file that the notation's grammar does not allow",
    "schema_error": "the event does not have the shape schemas/ requires (FORMAT.md Events)",
    "bad_seq": "`seq` does not count up by one from 0 within the game",
    "missing_header": "events before any `game` header, or a second deal without a new header",
    "unknown_ruleset": "the header names no known preset",
    "bad_option": "the header's options hold an unknown option or a value of the wrong type",
    "unsupported_rule": "the ruleset uses an option value this version cannot replay yet",
    "unknown_card": "a card code that is not a card of this ruleset's pack",
    "card_not_in_hand": "a card played or kept that the player does not hold",
    "card_does_not_match": "a card that may not be played on the discard pile here",
    "wrong_player": "an event by a player whose turn it is not (or a suit choice nobody owes)",
    "wrong_draw_count": "a draw of the wrong size, or a draw the rules do not allow here",
    "draw_not_from_stock_top": "drawn cards that are not the top of the logged stock",
    "missing_suit_choice": "a wild card's player did not name a suit right after it",
    "duplicate_card": "the deal does not account for the pack exactly (a card twice, or missing)",
    "bad_reshuffle": "a reshuffle while the stock holds cards, or of the wrong cards",
    "missed_penalty": "a player ignored a pending draw (played or passed instead of serving it)",
    "wrong_penalty": "a penalty with no fault behind it, of the wrong size or reason",
    "wrong_winner": "round_end names the wrong winner",
    "wrong_score": "round_end's scores or final hands differ from the replay",
    "illegal_pass": "a pass the rules do not allow here",
    "play_after_round_end": "an event after the round was over",
    "round_not_finished": "round_end while the round goes on, or a game with no round_end",
    "wrong_starter": "a starter starter_redeal sends back, or the wrong dealer of a match round",
    "wrong_round": "a match round out of order, or with other players or another ruleset",
    "wrong_total": "match_end's totals differ from the sum of the rounds' scores",
    "match_not_over": "no match_end after the deciding round, or a round after the match ended",
    "match_over_too_early": "match_end before the match's target or round count is reached",
    "bad_commitment": "the revealed shuffle seed does not hash to the published commitment",
    "deal_not_from_seed": "the deal, starter, stock or a reshuffle is not what the seed gives",
    "truncated_file": "the file ends inside a compressed block or cannot be read further",
    "line_too_long": "a line longer than the reader accepts",
}
"""Every violation code to its meaning."""


class Violation(msgspec.Struct, frozen=True, kw_only=True):
    """One violation, located (the ``validate --json`` record).

    Attributes:
        file: the log file's path as given.
        line: 1-based line number of the offending event (the last line for a missing
            ``round_end``), or None for a file-level problem.
        game_id: the game's id, or None outside any game.
        event_index: the event's position in its game, the header being 0.
        player: the player the event belongs to, where there is one.
        code: a key of :data:`CODES`.
        rule: where the rule comes from (RULES.md section, option, FORMAT.md convention).
        message: a plain-language explanation.
        expected: what was legal there instead, or None.
    """

    file: str
    line: int | None
    game_id: str | None
    event_index: int | None
    player: str | None
    code: str
    rule: str
    message: str
    expected: str | None = None

    @property
    def legal(self) -> str | None:
        """What was legal there instead (the engine's words), or None: :attr:`expected`."""
        return self.expected

    def to_dict(self) -> dict[str, Any]:
        """Return the record as a plain dict with every field (JSON-ready)."""
        return {f: getattr(self, f) for f in self.__struct_fields__}
