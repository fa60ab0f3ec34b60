"""The offline HTML replay viewer.

:func:`render` turns a :class:`~maumau_log.disputes.timeline.Timeline` into one self-contained
HTML page: the CSS and the script are inline, nothing is fetched (a Content-Security-Policy
forbids every network request and any script but the viewer's own, by its SHA-256), and
the engine's states are embedded as JSON frames (:mod:`maumau_log.disputes.viewer_data`: a player
named once, each event's changes, a whole state every few dozen events), which the script
turns back into states as the user steps. The script only shows them: it steps through
the events (buttons, arrow keys, Home/End, a slider, ``v`` or a button to jump to the
violation) and decides no rule.

Player-supplied text (names, ids, meta, raw lines) reaches the page only inside the JSON
block, with ``<``, ``>``, ``&`` and the JavaScript line separators escaped as ``\\uXXXX``
(so no ``</script>`` can close the block), and the script sets it with ``textContent``;
the few values written into the HTML itself (title, footer) go through
:func:`html.escape`. Player-keyed data is lists of pairs and arrays by seat, read by the
script into Maps, so no name can meet a property every object inherits.

The page carries its provenance: the tool and version, the resolved ruleset (preset and
every option), the source file and the SHA-256 of the game's lines
(:func:`maumau_log.disputes.timeline.game_sha256`), so it can be handed on as evidence.
"""

from __future__ import annotations

import base64
import hashlib
import html
import json
import re
from importlib import resources
from typing import Any

from .timeline import Timeline
from .viewer_data import decode_frames, dumps

_PLACEHOLDER = re.compile(r"@@([A-Z_]+)@@")
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                 "\u2029": "\\u2029"}  # fmt: skip


def _template(name: str) -> str:
    return (
        resources.files(__package__ or "maumau_log.disputes")
        .joinpath("templates", name)
        .read_text("utf-8")
    )


def _json_escape(m: re.Match[str]) -> str:
    c = m.group()
    return _JSON_ESCAPES.get(c) or f"\\u{ord(c):04x}"


def _escape(text: str) -> str:
    """JSON text made safe for a script element; a lone surrogate (a file name the system
    gave undecoded) written as its ``\\uXXXX`` escape, which UTF-8 can carry."""
    return re.sub("[<>&\u2028\u2029\ud800-\udfff]", _json_escape, text)


def page_json(tl: Timeline, start: int | None = None) -> str:
    """The JSON document the page embeds (``id="game-data"``), as text.

    Returns:
        ``{"tool", "sha256", "source", "file", "game_id", "header", "ruleset",
        "violation", "unchecked", "start", "note", "unchecked_from", "first", "total", "players",
        "actions", "lines", "raws", "texts", "frames"}``: one entry per event held in
        ``lines`` (its line number or null), ``raws`` (the line as read), ``texts`` (its
        ``.mm`` text; null for a JSON log) and ``frames`` (:mod:`maumau_log.disputes.viewer_data`),
        for the events ``first`` to ``first + len(frames) - 1`` of the game's ``total``.
        :func:`page_steps` reads it back step by step.
    """
    head = {
        "format": 2,
        "tool": tl.tool,
        "sha256": tl.sha256,
        "source": tl.source,
        "file": tl.file,
        "game_id": tl.game_id,
        "header": tl.header,
        "ruleset": tl.ruleset,
        "violation": tl.violation.to_dict() if tl.violation is not None else None,
        "unchecked": tl.unchecked,
        "start": start,
        "note": tl.note,
        "unchecked_from": tl.unchecked_from,
        "first": tl.first,
        "total": tl.total,
        "players": tl.players,
        "actions": tl.actions,
        "lines": [s.line for s in tl.steps],
        "raws": [s.raw for s in tl.steps],
        "texts": [s.text for s in tl.steps] if any(s.text is not None for s in tl.steps) else None,
    }
    frames = ",".join("null" if s.frame is None else s.frame for s in tl.steps)
    return dumps(head)[:-1] + ',"frames":[' + frames + "]}"


def page_data(tl: Timeline, start: int | None = None) -> dict[str, Any]:
    """:func:`page_json` as a JSON object."""
    data: dict[str, Any] = json.loads(page_json(tl, start))
    return data


def page_steps(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The steps of a page's data, each ``{"index", "line", "raw", "text", "state",
    "legal"}``, with ``state`` rebuilt from the frames as the page's script does
    (:func:`maumau_log.disputes.viewer_data.decode_frames`: the keys of
    :func:`maumau_log.disputes.timeline.snapshot`) or None where not replayed, and ``legal`` the
    legal actions there as text."""
    states = decode_frames(data["players"], data["actions"], data["frames"])
    texts = data.get("texts") or [None] * len(states)
    out = []
    for k, state in enumerate(states):
        legal = state.pop("legal") if state is not None else []
        out.append(
            {
                "index": data["first"] + k,
                "line": data["lines"][k],
                "raw": data["raws"][k],
                "text": texts[k],
                "state": state,
                "legal": legal,
            }
        )
    return out


def _provenance(tl: Timeline) -> str:
    e = html.escape
    ruleset = (
        json.dumps(tl.ruleset, ensure_ascii=False, sort_keys=True)
        if tl.ruleset is not None
        else "(the ruleset did not resolve)"
    )
    return (
        f"Made by <code>{e(tl.tool)}</code> from <code>{e(tl.file)}</code>, game "
        f"<code>{e(tl.game_id)}</code>.<br>SHA-256 of the game's lines "
        "(each line as read, then a newline): "
        f'<code id="sha256">{e(tl.sha256)}</code>'
        f'<details><summary>Resolved ruleset</summary><code id="ruleset">{e(ruleset)}</code>'
        "</details>"
    )


def render(tl: Timeline, start: int | None = None) -> str:
    """The viewer page for ``tl``.

    Args:
        tl: the replayed game; start: the event shown first (None: the header).
    Returns:
        The HTML text (UTF-8 when written).
    """
    script = _template("viewer.js")
    digest = base64.b64encode(hashlib.sha256(script.encode("utf-8")).digest()).decode()
    title = f"maumau-log replay: {tl.game_id}"
    values = {
        "TITLE": html.escape(title),
        "TOOL": html.escape(tl.tool),
        "PROVENANCE": _provenance(tl),
        "DATA": _escape(page_json(tl, start)),
        "SCRIPT": script,
        "SCRIPT_HASH": digest,
    }
    # one pass: text from the log can never be taken for a placeholder
    return _PLACEHOLDER.sub(lambda m: values[m.group(1)], _template("viewer.html"))


def read_page_data(page: str) -> dict[str, Any]:
    """The JSON document embedded in a viewer page (for tests and for tools that check a
    page handed on as evidence)."""
    m = re.search(r'<script type="application/json" id="game-data">(.*?)</script>', page, re.S)
    if m is None:
        raise ValueError("not a maumau-log viewer page (no game-data block)")
    data: dict[str, Any] = json.loads(m.group(1))
    return data
