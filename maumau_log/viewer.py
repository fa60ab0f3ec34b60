"""The offline HTML replay viewer (issue 13, item 1).

:func:`render` turns a :class:`~maumau_log.timeline.Timeline` into one self-contained
HTML page: the CSS and the script are inline, nothing is fetched (a Content-Security-Policy
forbids every network request and any script but the viewer's own, by its SHA-256), and
the engine's states are embedded as JSON. The script only shows them: it steps through the
events (buttons, arrow keys, Home/End, a slider, ``v`` or a button to jump to the
violation) and decides no rule.

Player-supplied text (names, ids, meta, raw lines) reaches the page only inside the JSON
block, with ``<``, ``>``, ``&`` and the JavaScript line separators escaped as ``\\uXXXX``
(so no ``</script>`` can close the block), and the script sets it with ``textContent``;
the few values written into the HTML itself (title, footer) go through
:func:`html.escape`.

The page carries its provenance: the tool and version, the resolved ruleset (preset and
every option), the source file and the SHA-256 of the game's lines
(:func:`maumau_log.timeline.game_sha256`), so it can be handed on as evidence.
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

_PLACEHOLDER = re.compile(r"@@([A-Z_]+)@@")
_JSON_ESCAPES = {"<": "\\u003c", ">": "\\u003e", "&": "\\u0026", "\u2028": "\\u2028",
                 "\u2029": "\\u2029"}  # fmt: skip


def _template(name: str) -> str:
    return resources.files("maumau_log").joinpath("templates", name).read_text("utf-8")


def embed_json(obj: Any) -> str:
    """JSON safe to place inside ``<script type="application/json">``: ``<``, ``>``,
    ``&``, U+2028 and U+2029 written as ``\\uXXXX`` escapes (still the same JSON value)."""
    text = json.dumps(obj, ensure_ascii=False, separators=(",", ":"))
    return re.sub("[<>&\u2028\u2029]", lambda m: _JSON_ESCAPES[m.group()], text)


def page_data(tl: Timeline, start: int | None = None) -> dict[str, Any]:
    """The JSON document the page embeds (``id="game-data"``).

    Returns:
        ``{"tool", "sha256", "source", "file", "game_id", "header", "ruleset",
        "violation", "unchecked", "start", "steps": [{"index", "line", "raw", "text",
        "state", "legal"}]}``; ``state`` is :func:`maumau_log.timeline.snapshot` (the
        engine's view and what else the table shows) or null where not replayed.
    """
    return {
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
        "steps": [
            {
                "index": s.index,
                "line": s.line,
                "raw": s.raw,
                "text": s.text,
                "state": s.state,
                "legal": s.legal,
            }
            for s in tl.steps
        ],
    }


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
        "DATA": embed_json(page_data(tl, start)),
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
