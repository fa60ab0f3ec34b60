"""``view DATASET GAME`` and ``game DATASET GAME --try`` show the game the dataset stores:
a source file is read only while it holds that game (the stored content hash, and the
violating line as the dataset kept it); otherwise the stored events are replayed, after
checking them against the same hash."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import msgspec
import pytest
from test_viewer import SAMPLES, reference, runner

import maumau_log.cli.data_cmds  # noqa: F401  (ingest, game)
from maumau_log.bots.sim import simulate
from maumau_log.cli import app
from maumau_log.disputes.timeline import SourceError, build, find_game
from maumau_log.disputes.viewer import page_steps, read_page_data
from maumau_log.events import Play, encode_event

STORED = "shown from the dataset's stored events"


def _ingest(log: Path, ds: Path) -> None:
    r = runner.invoke(app, ["ingest", str(log), "--out", str(ds)])
    assert r.exit_code in (0, 1), r.output


def _view(ds: Path, game_id: str, out: Path) -> tuple[dict[str, Any], str]:
    r = runner.invoke(app, ["view", str(ds), game_id, "--out", str(out)])
    assert r.exit_code == 0, r.output
    return read_page_data(out.read_text()), " ".join(r.output.split())


def _valid_game(tmp: Path, name: str = "g.jsonl") -> tuple[Path, str, int]:
    """A simulated valid standard game, and the index of a play two thirds of the way in."""
    events = next(simulate("standard", 3, 1, 11))
    path = tmp / name
    path.write_bytes(b"".join(encode_event(e) + b"\n" for e in events))
    plays = [i for i, ev in enumerate(events) if isinstance(ev, Play) and not ev.jump_in]
    return path, events[0].game_id, plays[len(plays) * 2 // 3]  # type: ignore[attr-defined]


def _hand_to_another(path: Path, i: int) -> None:
    """Edit event ``i`` (a play) to be played by another player: a wrong_player there."""
    lines = path.read_bytes().splitlines()
    ev = msgspec.json.decode(lines[i])
    players = json.loads(lines[0])["players"]
    ev["player"] = next(p for p in players if p != ev["player"])
    lines[i] = msgspec.json.encode(ev)
    path.write_bytes(b"".join(x + b"\n" for x in lines))


def test_an_edited_source_file_shows_the_stored_game(tmp_path: Path) -> None:
    log, game_id, i = _valid_game(tmp_path)
    original = tmp_path / "original.jsonl"
    shutil.copyfile(log, original)
    ds = tmp_path / "ds"
    _ingest(log, ds)
    _hand_to_another(log, i)
    edited = build(find_game(log, game_id), str(log))
    assert edited.violation is not None and edited.violation.code == "wrong_player"
    data, said = _view(ds, game_id, tmp_path / "v.html")
    note = (
        f"{log} no longer holds the game as it was ingested (its lines differ from the stored "
        f"ones): {STORED}"
    )
    assert data["note"] == note
    assert data["violation"] is None  # the stored game is valid
    views, _ = reference(original, game_id)
    steps = page_steps(data)
    assert len(steps) == len(views) == data["total"]
    for step in steps:
        assert {k: step["state"][k] for k in views[step["index"]]} == views[step["index"]]
    assert said.endswith(f"events 0 to {data['total'] - 1}, valid note: {note}")


def test_try_on_a_dataset_asks_the_stored_game(tmp_path: Path) -> None:
    log, game_id, i = _valid_game(tmp_path)
    ds = tmp_path / "ds"
    _ingest(log, ds)
    last = len(log.read_bytes().splitlines()) - 1
    r = runner.invoke(app, ["game", str(ds), game_id, "--try", "p1 passes", "--json"])
    assert json.loads(r.stdout)["at"] == last  # the last event the replay accepted
    _hand_to_another(log, i)
    r = runner.invoke(app, ["game", str(log), game_id, "--try", "p1 passes", "--json"])
    assert json.loads(r.stdout)["at"] == i - 1  # the edited file: the replay stops at event i
    r = runner.invoke(app, ["game", str(ds), game_id, "--try", "p1 passes", "--json"])
    assert json.loads(r.stdout)["at"] == last  # the dataset: still the stored game


def test_another_working_folder_never_shows_another_game(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    here, there = tmp_path / "here", tmp_path / "there"
    here.mkdir()
    there.mkdir()
    log, game_id, i = _valid_game(here)
    monkeypatch.chdir(here)
    _ingest(Path("g.jsonl"), tmp_path / "ds")  # the source path is stored as given
    shutil.copyfile(log, there / "g.jsonl")
    _hand_to_another(there / "g.jsonl", i)  # the same name and game id, other content
    monkeypatch.chdir(there)
    data, _ = _view(tmp_path / "ds", game_id, tmp_path / "v.html")
    assert data["violation"] is None
    assert data["note"] == (
        f"g.jsonl no longer holds the game as it was ingested (its lines differ from the "
        f"stored ones): {STORED}"
    )
    monkeypatch.chdir(tmp_path)  # no g.jsonl here
    data, _ = _view(tmp_path / "ds", game_id, tmp_path / "v.html")
    assert data["note"] == f"its source file g.jsonl is not found: {STORED}"
    assert data["violation"] is None and len(data["frames"]) == data["total"]


def test_an_invalid_game_with_its_violating_line_edited(tmp_path: Path) -> None:
    log = tmp_path / "wrong_player.jsonl"
    shutil.copyfile(SAMPLES / "violations" / "wrong_player.jsonl", log)
    ds = tmp_path / "ds"
    _ingest(log, ds)
    text = log.read_text()
    # the same violation (wrong_player at event 12), so the same content hash: the line
    # itself is checked against the one the dataset kept
    log.write_text(text.replace('"player":"p2","cards":["AD"]}', '"player":"p2","cards":["AH"]}'))
    data, _ = _view(ds, "sample-wrong_player", tmp_path / "v.html")
    assert data["note"].endswith(f"(its lines differ from the stored ones): {STORED}")
    assert (data["violation"]["code"], data["violation"]["event_index"]) == ("wrong_player", 12)
    assert data["raws"][12] == '{"type":"play","player":"p2","cards":["AD"]}'  # as ingested
    assert (len(data["raws"]), data["total"]) == (13, 14)  # event 13 is not stored
    assert page_steps(data)[12]["state"] is None
    # an edit after the violation changes no stored line: the file is read, and its lines
    # after the violation are marked as not checked
    log.write_text(text.replace('"scores":{"p1":110,"p2":0}', '"scores":{"p1":999,"p2":0}'))
    data, _ = _view(ds, "sample-wrong_player", tmp_path / "v.html")
    assert data["note"] is None and data["unchecked_from"] == 13
    assert '"p1":999' in data["raws"][13]
    log.write_text(text)
    data, _ = _view(ds, "sample-wrong_player", tmp_path / "v.html")
    assert (data["note"], data["unchecked_from"], len(data["raws"])) == (None, 13, 14)


def test_a_stored_match_round_gets_its_running_totals(tmp_path: Path) -> None:
    log = tmp_path / "m.jsonl"
    shutil.copyfile(SAMPLES / "valid" / "classic_2p_match.jsonl", log)
    ds = tmp_path / "ds"
    _ingest(log, ds)
    game_id = "sim-35-m00000-r002"
    from_file = page_steps(_view(ds, game_id, tmp_path / "a.html")[0])
    log.unlink()
    data, _ = _view(ds, game_id, tmp_path / "b.html")
    assert data["note"] == f"its source file {log} is not found: {STORED}"
    stored = page_steps(data)
    assert stored[1]["state"]["match_totals"] == {"p1": 57, "p2": 0}  # after round 1
    assert [s["state"] for s in stored] == [s["state"] for s in from_file]


def test_stored_events_that_do_not_match_their_hash_are_refused(tmp_path: Path) -> None:
    import polars as pl

    from maumau_log.disputes.stored import _stored
    from maumau_log.store import scan_all

    log, game_id, _ = _valid_game(tmp_path)
    ds = tmp_path / "ds"
    _ingest(log, ds)
    game = scan_all(ds)["games"].filter(pl.col("game_id") == game_id).collect().row(0, named=True)
    assert len(_stored(ds, game).lines) == game["events"]
    game["content_hash"] += 1
    with pytest.raises(SourceError) as info:
        _stored(ds, game)
    assert str(info.value) == (
        f"{ds}: the stored events of game {game_id!r} do not match its stored content hash: "
        f"the dataset was damaged or changed (maumau-log verify {ds})"
    )


def test_a_dataset_game_is_replayed_with_the_options_it_was_ingested_with(
    tmp_path: Path,
) -> None:
    src = SAMPLES / "disputes" / "standard_seven_on_seven.mm"
    rules = tmp_path / "answer.toml"
    rules.write_text('[options]\ndraw_answer = "same_rank"\n')  # a 7 answers a 7
    ds = tmp_path / "ds"
    r = runner.invoke(app, ["ingest", str(src), "--out", str(ds), "--rules", str(rules)])
    assert r.exit_code in (0, 1), r.output
    out = tmp_path / "v.html"
    r = runner.invoke(app, ["view", str(src), "club-2024-031", "--out", str(out)])
    assert read_page_data(out.read_text())["violation"]["code"] == "missed_penalty"
    r = runner.invoke(
        app, ["view", str(src), "club-2024-031", "--out", str(out), "--rules", str(rules)]
    )
    as_ingested = read_page_data(out.read_text())
    data, _ = _view(ds, "club-2024-031", out)
    assert data["note"] is None  # the source file, checked against the stored game
    assert data["ruleset"]["options"]["draw_answer"] == "same_rank"
    assert data["violation"] == as_ingested["violation"]
    assert page_steps(data) == page_steps(as_ingested)
    assert (data["violation"] or {}).get("event_index") != 6  # 7H on 7C is an answer now
