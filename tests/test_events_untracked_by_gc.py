"""Events are not tracked by the garbage collector (``gc=False`` on their structs): a
decoded or constructed event of every type is untracked, its lists and dicts still are,
and an untracked event still encodes, compares, copies and pickles as before."""

from __future__ import annotations

import copy
import gc
import pickle

import pytest

from maumau_log.events import EVENT_TYPES, Deal, Play, decode_event, encode_event

LINES = {
    "game": b'{"type":"game","format":"maumau-log/1","game_id":"g","ruleset":"classic",'
    b'"players":["ana","ben"],"meta":{"k":[1]}}',
    "cut": b'{"type":"cut","player":"ana","taken":["7H"]}',
    "deal": b'{"type":"deal","hands":{"ana":["7H"],"ben":{"count":5}},"starter":"8C",'
    b'"stock":["9D"]}',
    "play": b'{"type":"play","player":"ana","cards":["7H"],"t":1767225600000}',
    "suit": b'{"type":"suit","player":"ana","suit":"H"}',
    "draw": b'{"type":"draw","player":"ben","cards":["9D"],"reason":"no_play"}',
    "pass": b'{"type":"pass","player":"ben","seq":4}',
    "mau": b'{"type":"mau","player":"ana","call":"mau"}',
    "penalty": b'{"type":"penalty","player":"ana","reason":"missed_call","by":"ben","count":2}',
    "reshuffle": b'{"type":"reshuffle","stock":["7H","8C"]}',
    "round_end": b'{"type":"round_end","winner":"ana","scores":{"ana":0,"ben":12}}',
    "match_end": b'{"type":"match_end","totals":{"ana":0,"ben":12},"winner":"ana"}',
    "abandon": b'{"type":"abandon","reason":"timeout"}',
}


def test_every_event_type_has_a_line_here() -> None:
    assert sorted(LINES) == sorted(EVENT_TYPES)


@pytest.mark.parametrize("tag", sorted(LINES))
def test_a_decoded_event_is_untracked_and_round_trips(tag: str) -> None:
    ev = decode_event(LINES[tag])
    assert type(ev) is EVENT_TYPES[tag]
    assert gc.is_tracked(ev) is False
    assert decode_event(encode_event(ev)) == ev
    assert pickle.loads(pickle.dumps(ev)) == ev
    assert copy.deepcopy(ev) == ev


def test_an_untracked_event_keeps_its_containers_tracked() -> None:
    play = Play(player="ana", cards=["7H", "7C"])
    deal = decode_event(LINES["deal"])
    assert isinstance(deal, Deal)
    assert gc.is_tracked(play) is False and gc.is_tracked(deal) is False
    assert gc.is_tracked(play.cards) is True
    assert gc.is_tracked(deal.hands) is True
    assert encode_event(play) == b'{"type":"play","player":"ana","cards":["7H","7C"]}'
