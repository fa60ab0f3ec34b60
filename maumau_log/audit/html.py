"""The audit report as one self-contained HTML page."""

from __future__ import annotations

import math
from typing import Any

from .findings import FAST_MS, MIN_EXPECTED, AuditReport

# ---------------------------------------------------------------------------------------
# The HTML report


def _fmt_p(p: float | None) -> str:
    if p is None:
        return "-"
    return f"{p:.2g}" if p >= 1e-300 else "<1e-300"


def _count(n: int, noun: str) -> str:
    """``"1 game"``, ``"9,341 games"``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


def short_float(value: float) -> str:
    """A float to at most 3 places, without the zeros a rounded value does not have
    (``26.6``, not ``26.600``; ``0.333``)."""
    return f"{round(value, 3):,}"


def report_html(report: AuditReport) -> str:
    """The report as one self-contained HTML page: plotly charts with plotly.js embedded
    (no network needed to read it), the flags with their evidence, every test."""
    import html

    import plotly.graph_objects as go
    import plotly.io as pio

    figures: list[tuple[str, go.Figure]] = []
    tested = report.tested
    if tested and report.flags:  # with nothing flagged, every bar would be all but empty
        names = [f"{f.check} | {f.subject}" for f in tested]
        values = [-math.log10(max(f.p_adjusted or 1.0, 1e-300)) for f in tested]
        fig = go.Figure(
            go.Bar(
                x=values,
                y=names,
                orientation="h",
                marker_color=["crimson" if f.flagged else "steelblue" for f in tested],
            )
        )
        fig.add_vline(x=-math.log10(report.alpha), line_dash="dash", annotation_text="alpha")
        fig.update_layout(
            title="Every test: -log10(Holm-adjusted p); right of the line is flagged",
            height=max(300, 18 * len(tested) + 120),
            margin={"l": 320},
        )
        figures.append(("tests", fig))
    for name, key, title in (
        ("wins_by_seat", "seat", "Win rate by seat (95% Wilson interval)"),
        ("wins_by_dealer_position", "position", "Win rate by position from the dealer "
         "(0 = dealer; 95% Wilson interval; turn order, not tested)"),
    ):  # fmt: skip
        rows = report.tables.get(name, [])
        if not rows:
            continue
        fig = go.Figure()
        for label in sorted({f"{r['ruleset']}/{r['players']}p" for r in rows}):
            sub = [r for r in rows if f"{r['ruleset']}/{r['players']}p" == label]
            fig.add_trace(
                go.Bar(
                    name=label,
                    x=[str(r[key]) for r in sub],
                    y=[r["win_rate"] for r in sub],
                    error_y={
                        "type": "data",
                        "symmetric": False,
                        "array": [r["ci_high"] - r["win_rate"] for r in sub],
                        "arrayminus": [r["win_rate"] - r["ci_low"] for r in sub],
                    },
                )
            )
        fig.update_layout(title=title, xaxis_title=key, yaxis_title="win rate")
        figures.append((name, fig))
    deal = [f for f in report.findings if f.section == "deal" and f.table]
    if deal:
        fig = go.Figure()
        for f in deal:
            fig.add_trace(
                go.Bar(
                    name=f"{f.check} {f.subject}",
                    x=[c["cell"] for c in f.table],
                    y=[c["observed"] / c["expected"] if c["expected"] else None for c in f.table],
                )
            )
        fig.add_hline(y=1.0, line_dash="dash")
        fig.update_layout(
            title="The deal: observed / expected count per cell (1 = exactly as expected)",
            barmode="group",
        )
        figures.append(("deal", fig))
    players = report.tables.get("players", [])
    if any(r.get("drawn") for r in players):
        fig = go.Figure(
            go.Bar(
                x=[r["player"] for r in players],
                y=[r.get("drawn_playable_rate") for r in players],
            )
        )
        fig.update_layout(title="Share of drawn cards (no_play, voluntary) playable at once")
        figures.append(("draws", fig))
    if any(r.get("decisions_timed") for r in players):
        fig = go.Figure(
            go.Bar(
                x=[r["player"] for r in players],
                y=[r.get("median_decision_ms") for r in players],
            )
        )
        fig.add_hline(y=FAST_MS, line_dash="dash", annotation_text=f"{FAST_MS} ms")
        fig.update_layout(title="Median decision time (ms)", yaxis_type="log")
        figures.append(("timing", fig))
    by_date = report.tables.get("invalid_by_date", [])
    if by_date:
        fig = go.Figure()
        fig.add_trace(go.Bar(name="games", x=[r["date"] for r in by_date],
                             y=[r["games"] for r in by_date]))  # fmt: skip
        fig.add_trace(go.Bar(name="invalid", x=[r["date"] for r in by_date],
                             y=[r["invalid"] for r in by_date]))  # fmt: skip
        fig.update_layout(title="Games and invalid games by date", barmode="group")
        figures.append(("invalid_by_date", fig))
    by_client = report.tables.get("invalid_by_client", [])
    if by_client:
        fig = go.Figure(
            go.Bar(
                x=[r["client"] for r in by_client],
                y=[r["invalid"] / r["games"] if r["games"] else 0 for r in by_client],
            )
        )
        fig.update_layout(title="Share of invalid games by client (meta.client / meta.engine)")
        figures.append(("invalid_by_client", fig))

    def esc(value: Any) -> str:
        return html.escape(str(value))

    def rows_table(rows: list[dict[str, Any]]) -> str:
        if not rows:
            return "<p>none</p>"
        cols = list(rows[0])
        head = "".join(f"<th>{esc(c)}</th>" for c in cols)
        body = "".join(
            "<tr>"
            + "".join(
                f"<td>{esc(short_float(v) if isinstance(v := r.get(c), float) else v)}</td>"
                for c in cols
            )
            + "</tr>"
            for r in rows
        )
        return f"<table><tr>{head}</tr>{body}</table>"

    flags = report.flags
    flag_html = (
        "".join(
            f"<div class='flag'><h3>{esc(f.section)}: {esc(f.check)} — {esc(f.subject)}</h3>"
            f"<p>{esc(f.summary)}</p><p>p = {_fmt_p(f.p_value)}, Holm-adjusted "
            f"{_fmt_p(f.p_adjusted)} (alpha {report.alpha}). Method: {esc(f.method)}.</p>"
            f"<p>Evidence games: {esc(', '.join(f.evidence.get('games', [])) or '-')}</p>"
            f"<p>Evidence events (game, event index): "
            f"{esc('; '.join(f'{g} #{i}' for g, i in f.evidence.get('events', [])) or '-')}</p>"
            "</div>"
            for f in flags
        )
        or f"<p class='headline'>Nothing flagged: {len(tested):,} "
        f"test{'' if len(tested) == 1 else 's'} run, none unlikely enough under fair play "
        f"at alpha {report.alpha} (Holm-corrected).</p>"
    )
    all_rows = [
        {
            "section": f.section, "check": f.check, "subject": f.subject, "games": f.games,
            "n": f.n, "statistic": f.statistic, "p": _fmt_p(f.p_value),
            "p (Holm)": _fmt_p(f.p_adjusted), "flagged": f.flagged,
            "result": f.summary or f.skipped or "", "method": f.method,
        }
        for f in report.findings
    ]  # fmt: skip
    parts = []
    for i, (_, fig) in enumerate(figures):
        parts.append(pio.to_html(fig, include_plotlyjs=(i == 0), full_html=False))
    how = "with facts from the ingest" if report.facts_from == "ingest" else "replayed"
    return f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>maumau-log audit</title>
<style>body{{font-family:sans-serif;margin:2em;max-width:1200px}}
table{{border-collapse:collapse;font-size:12px}}td,th{{border:1px solid #ccc;padding:2px 5px}}
.flag{{border-left:4px solid crimson;padding-left:1em;margin:1em 0}}</style></head><body>
<h1>maumau-log audit of {esc(report.dataset)}</h1>
<p>{_count(report.games, "game")} ({report.valid:,} valid, {report.replayed:,} {how} for the
play tests). {_count(len(tested), "test")} run, {len(report.findings) - len(tested):,} skipped
(fewer than
{report.min_games} games, or expected counts under {MIN_EXPECTED:g}). Every p-value says how
likely a result this far from fair play would be under fair play; all are corrected together
by Holm's method, so a report on fair play flags anything with probability at most
{report.alpha}.</p>
<h2>Flags ({len(flags)})</h2>{flag_html}
<h2>Charts</h2>{"".join(parts)}
<h2>Wins by seat</h2>{rows_table(report.tables.get("wins_by_seat", []))}
<h2>Wins by position from the dealer</h2>
{rows_table(report.tables.get("wins_by_dealer_position", []))}
<h2>Players</h2>{rows_table(players)}
<h2>Invalid games by code</h2>{rows_table(report.tables.get("invalid_by_code", []))}
<h2>Invalid games by player</h2>{rows_table(report.tables.get("invalid_by_player", []))}
<h2>Invalid games by client</h2>{rows_table(by_client)}
<h2>Invalid games by date</h2>{rows_table(by_date)}
<h2>Every test</h2>{rows_table(all_rows)}
</body></html>
"""
