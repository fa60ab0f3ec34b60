"""The viewer in a real browser: headless Chromium driven by Selenium.

Chromium and chromedriver come from Debian's packages (``.ci/run`` installs them); the
driver is pointed at the system binaries, so nothing is downloaded. Where they (or the
``selenium`` package) are missing, these tests skip with the reason. Screenshots are kept
in ``test-artifacts/`` (or ``$MAUMAU_TEST_ARTIFACTS``).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from test_viewer import HOSTILE, SAMPLES, dispute, hostile_log, reference

from maumau_log.disputes.timeline import build, find_game
from maumau_log.disputes.viewer import render
from maumau_log.rules import PRESET_NAMES

CHROMIUM = os.environ.get("MAUMAU_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("MAUMAU_CHROMEDRIVER", "/usr/bin/chromedriver")
_ROOT = Path(__file__).resolve().parent.parent
ARTIFACTS = Path(os.environ.get("MAUMAU_TEST_ARTIFACTS", _ROOT / "test-artifacts"))
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1280,900"]  # fmt: skip


def _why_no_browser() -> str | None:
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "the selenium package is not installed (pip install -e '.[dev]')"
    for path in (CHROMIUM, CHROMEDRIVER):
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            return f"{path} not found (apt-get install chromium chromium-driver)"
    return None


pytestmark = pytest.mark.skipif(_why_no_browser() is not None, reason=str(_why_no_browser()))


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    profile = tempfile.mkdtemp(prefix="maumau-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in [*FLAGS, f"--user-data-dir={profile}"]:
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def open_page(browser: Any, path: Path, game_id: str, out: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait

    out.write_text(render(build(find_game(path, game_id), str(path))), encoding="utf-8")
    browser.get(out.resolve().as_uri())
    WebDriverWait(browser, 10).until(
        lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "1"
    )


def press(browser: Any, key: str, times: int = 1) -> None:
    from selenium.webdriver.common.action_chains import ActionChains

    chain = ActionChains(browser)
    for _ in range(times):
        chain.send_keys(key)
    chain.perform()


def shown(browser: Any) -> dict[str, Any]:
    """The state as the page shows it, read from the DOM."""
    by = "css selector"

    def text(sel: str) -> str:
        return str(browser.find_element(by, sel).text)

    tops = browser.find_elements(by, "#top .card")
    hands = {
        seat.get_attribute("data-player"): (
            seat.find_element(by, ".cards").get_attribute("data-cards") or ""
        ).split()
        for seat in browser.find_elements(by, ".seat")
    }
    turn = text("#turn")
    return {
        "step": int(browser.find_element(by, "body").get_attribute("data-step")),
        "turn": None if turn == "\u2014" else turn,
        "top": tops[0].get_attribute("data-card") if tops else None,
        "suit": browser.find_element(by, "#suit").get_attribute("data-suit") or None,
        "stock_size": int(text("#stock-size").split()[0]),
        "pending_draw": int(text("#pending-draw")),
        "pending_skip": int(text("#pending-skip")),
        "hands": hands,
    }


def expected(view: dict[str, Any]) -> dict[str, Any]:
    keys = ("turn", "top", "suit", "stock_size", "pending_draw", "pending_skip", "hands")
    return {k: view[k] for k in keys}


def screenshot(browser: Any, name: str) -> Path:
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / name
    browser.save_screenshot(str(path))
    assert path.stat().st_size > 10_000  # a real picture, not an empty page
    return path


def test_step_with_the_keyboard_to_the_violation(browser: Any, tmp_path: Path) -> None:
    path = SAMPLES / "disputes" / "standard_seven_on_seven.mm"
    open_page(browser, path, "club-2024-031", tmp_path / "v.html")
    views, violation = reference(path, "club-2024-031")
    assert violation is not None and violation.event_index == 6
    for i in range(1, 6):  # right arrow, event by event: the engine's view at each
        press(browser, "\ue014")  # ArrowRight
        got = shown(browser)
        assert got.pop("step") == i
        assert got == expected(views[i]), i
    press(browser, "\ue014")
    got = shown(browser)
    assert got.pop("step") == 6
    assert got == expected(views[5])  # at the violation: the state right before it
    assert got["pending_draw"] == 2 and got["turn"] == "ana"
    box = browser.find_element("id", "violation")
    assert box.is_displayed()
    assert browser.find_element("id", "v-code").text == "missed_penalty"
    assert browser.find_element("id", "v-expected").text == "ana draws 2 (effect)"
    legal = [li.text for li in browser.find_elements("css selector", "#legal li")]
    assert legal == ["ana draws 2 (effect)"]
    raw = browser.find_element("id", "event-raw").text
    assert raw == '{"type":"play","player":"ana","cards":["7H"]}'
    assert browser.find_element("id", "event-place").text.endswith(".mm:22, event 6")
    screenshot(browser, "viewer-standard_seven_on_seven.png")
    press(browser, "\ue011")  # Home
    assert shown(browser)["step"] == 0
    press(browser, "v")
    assert shown(browser)["step"] == 6


@pytest.mark.parametrize("preset", [p for p in PRESET_NAMES if p in ("serbian", "pesten",
                                                                    "crazy-eights")])  # fmt: skip
def test_jump_to_the_violation_of_a_dispute(browser: Any, tmp_path: Path, preset: str) -> None:
    path, game_id, at = dispute(preset, tmp_path)
    open_page(browser, path, game_id, tmp_path / "v.html")
    views, _ = reference(path, game_id)
    browser.find_element("id", "jump-violation").click()
    got = shown(browser)
    assert got.pop("step") == at
    assert got == expected(views[at - 1])
    press(browser, "\ue012")  # ArrowLeft: the event before, as the engine left it
    got = shown(browser)
    assert got.pop("step") == at - 1
    assert got == expected(views[at - 1])
    press(browser, "\ue012")
    got = shown(browser)
    assert got.pop("step") == at - 2
    assert got == expected(views[at - 2])
    screenshot(browser, f"viewer-{preset}.png")


def test_a_script_in_a_player_name_does_not_run(browser: Any, tmp_path: Path) -> None:
    path = hostile_log(tmp_path)
    import json

    game_id = json.loads(path.read_text().splitlines()[0])["game_id"]
    open_page(browser, path, game_id, tmp_path / "h.html")
    press(browser, "\ue014")  # to the deal: the seats show the names
    assert browser.execute_script("return typeof window.pwned") == "undefined"
    names = [s.get_attribute("data-player") for s in browser.find_elements("css selector", ".seat")]
    assert names == HOSTILE[:2]
    who = browser.find_elements("css selector", ".seat .who")[0].text
    assert who.startswith(HOSTILE[0])
    assert not browser.find_elements("css selector", "img")  # no element was injected
    screenshot(browser, "viewer-hostile-names.png")


SEATS_JS = """
return Array.from(document.querySelectorAll('.seat')).map(function (s) {
  return {player: s.getAttribute('data-player'),
          cards: (s.querySelector('.cards').getAttribute('data-cards') || '').split(' ')
                   .filter(function (c) { return c; }),
          faults: Array.from(s.querySelectorAll('.badge.fault')).map(function (b) {
                    return b.textContent; })};
});
"""


def test_players_named_after_inherited_properties(browser: Any, tmp_path: Path) -> None:
    from test_viewer_untrusted import PROTO_NAMES, proto_names_log

    path, game_id = proto_names_log(tmp_path)
    text = path.read_text().replace('"meta":{', '"meta":{"__proto__":{"polluted":1},', 1)
    path.write_text(text)
    open_page(browser, path, game_id, tmp_path / "p.html")
    # a "__proto__" key is data after JSON.parse: an own property, no prototype changed
    assert browser.execute_script(
        "var d = JSON.parse(document.getElementById('game-data').textContent);"
        "return [Object.prototype.hasOwnProperty.call(d.header.meta, '__proto__'),"
        " d.header.meta.polluted === undefined, ({}).polluted === undefined,"
        " d.players.slice()]"
    ) == [True, True, True, PROTO_NAMES]
    views, violation = reference(path, game_id)
    assert violation is None
    seen_fault = False
    for i in range(len(views)):
        if i:
            press(browser, "\ue014")  # ArrowRight
        got = browser.execute_script(SEATS_JS)
        want = [
            {
                "player": p,
                "cards": views[i]["hands"][p],
                "faults": [f"fault open: {views[i]['calls_due'][p]}"]
                if p in views[i]["calls_due"]
                else [],
            }
            for p in PROTO_NAMES
        ]
        assert got == want, i
        assert shown(browser)["turn"] == views[i]["turn"]
        if any(w["faults"] for w in want) and not seen_fault:
            screenshot(browser, "viewer-inherited-names.png")
            seen_fault = True
    assert seen_fault  # the game has real faults open too, and they show


def test_a_window_of_a_long_game(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait
    from test_viewer_untrusted import long_game, write_game

    path = write_game(tmp_path, long_game(3_000))
    tl = build(find_game(path, "long-3000"), str(path), first=1_999, limit=60_000, partial=True)
    last = tl.first + len(tl.steps) - 1
    assert 2_100 < last < 3_000 and tl.cut
    out = tmp_path / "w.html"
    out.write_text(render(tl, 2_000), encoding="utf-8")
    browser.get(out.resolve().as_uri())
    WebDriverWait(browser, 10).until(
        lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "1"
    )
    views, _ = reference(path, "long-3000")
    got = shown(browser)
    assert got.pop("step") == 2_000
    assert got == expected(views[2_000])
    slider = browser.find_element("id", "slider")
    assert (slider.get_attribute("min"), slider.get_attribute("max")) == ("1999", str(last))
    window = browser.find_element("id", "window").text
    assert window == f"events 1999 to {last} of 0 to {tl.total - 1}"
    screenshot(browser, "viewer-window.png")
    press(browser, "\ue011")  # Home: the window's first event
    got = shown(browser)
    assert got.pop("step") == 1_999
    assert got == expected(views[1_999])
    press(browser, "\ue010")  # End
    got = shown(browser)
    assert got.pop("step") == last
    assert got == expected(views[last])
    for _ in range(70):  # back across a whole frame: each state rebuilt from the frames
        press(browser, "\ue012")
    got = shown(browser)
    assert got.pop("step") == last - 70
    assert got == expected(views[last - 70])


def test_a_huge_player_name_is_shown_shortened(browser: Any, tmp_path: Path) -> None:
    from selenium.webdriver.support.ui import WebDriverWait
    from test_viewer_untrusted import long_game, write_game

    name = "n" * 1_000_000
    path = write_game(tmp_path, long_game(60, name=name))
    out = tmp_path / "n.html"
    out.write_text(render(build(find_game(path, "long-60"), str(path))), encoding="utf-8")
    browser.get(out.resolve().as_uri())
    WebDriverWait(browser, 60).until(
        lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "1"
    )
    press(browser, "\ue014")  # to the deal
    who = browser.find_elements("css selector", ".seat .who")[0].text
    assert who.startswith("n" * 64 + "\u2026 (1,000,000 characters) \u00b7 ")
    assert (
        browser.execute_script(
            "return document.querySelector('.seat').getAttribute('data-player').length"
        )
        == 1_000_000
    )
    raw = browser.find_element("id", "event-raw").text
    assert len(raw) <= 20_000
    screenshot(browser, "viewer-huge-name.png")
    deal = path.read_text().splitlines()[1]  # its hands are keyed by the name
    more = browser.find_element("id", "raw-more")
    assert more.is_displayed() and more.text == f"show the whole line ({len(deal):,} characters)"
    more.click()
    assert len(browser.find_element("id", "event-raw").text) == len(deal)
