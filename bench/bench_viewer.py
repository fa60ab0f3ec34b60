"""The viewer's page size, time and memory for long games (run by hand).

Writes one valid classic game of about ``--events`` events (two simulated players who
draw voluntarily nearly every turn, so the round goes on; it ends with an ``abandon`` and
its ``round_end``), optionally with a player name of ``--name-bytes`` characters, then
runs ``maumau-log view`` on it in a child process and reports the page's size, the
wall time and the child's peak RSS (``os.wait4``); with ``--browser``, also the time
headless Chromium takes to open the page until its script has shown the first step
(``data-ready``), or the error it shows instead::

    python bench/bench_viewer.py --events 1000 10000 100000 --browser
    python bench/bench_viewer.py --events 60 --name-bytes 1000000 --browser
"""

from __future__ import annotations

import argparse
import contextlib
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from maumau_log.bots.sim import Bot, SimTable, fair_shuffle
from maumau_log.bots.table import make_header
from maumau_log.events import Abandon, RoundEnd, encode_event
from maumau_log.rules import resolve


def long_game(events: int, name_bytes: int = 0, seed: int = 7) -> list[bytes]:
    """The lines of one valid classic game of about ``events`` events."""
    rules = resolve("classic")
    rng = random.Random(f"bench-viewer:{seed}")
    p1 = "p1" if name_bytes <= 2 else "n" * name_bytes
    header = make_header(rules, f"long-{events}", [p1, "p2"], "p2", fair_shuffle(rng))
    table = SimTable(rules, header, rng, Bot(voluntary_draw=0.95))
    table.deal()
    table.run(max(events - 4, 1))
    e = table.engine
    table.emit(Abandon(reason="bench"))
    hands = {p: list(h) for p, h in e.hands.items()}
    table.emit(RoundEnd(winner=None, scores=None, hands=hands))
    return [encode_event(ev) for ev in table.events]


def measure(
    path: Path, game_id: str, out: Path, at: int | None = None
) -> tuple[int, float, float, int]:
    """(exit code, seconds, peak RSS in MiB, page bytes) of ``maumau-log view``."""
    t0 = time.perf_counter()
    extra = [] if at is None else ["--at", str(at)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "maumau_log", "view", str(path), game_id, "--out", str(out), *extra],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    _, status, usage = os.wait4(proc.pid, 0)
    dt = time.perf_counter() - t0
    code = os.waitstatus_to_exitcode(status)
    assert proc.stderr is not None
    said = proc.stderr.read().decode(errors="replace")
    print("   ", " ".join(said.split())[:400], file=sys.stderr)
    size = out.stat().st_size if out.exists() and code == 0 else 0
    return code, dt, usage.ru_maxrss / 1024, size


def open_in_browser(page: Path, timeout: float = 300) -> str:
    """Seconds until headless Chromium shows the page's first step, or why it did not."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.support.ui import WebDriverWait

    opts = webdriver.ChromeOptions()
    opts.binary_location = os.environ.get("MAUMAU_CHROMIUM", "/usr/bin/chromium")
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,900"):
        opts.add_argument(flag)
    service = Service(os.environ.get("MAUMAU_CHROMEDRIVER", "/usr/bin/chromedriver"))
    driver = webdriver.Chrome(service=service, options=opts)
    driver.set_page_load_timeout(timeout)
    try:
        t0 = time.perf_counter()
        driver.get(page.resolve().as_uri())
        WebDriverWait(driver, timeout).until(
            lambda d: d.find_element("tag name", "body").get_attribute("data-ready") == "1"
        )
        return f"browser {time.perf_counter() - t0:6.2f} s"
    except Exception as exc:  # a bench reports whatever stopped the page
        logs = ""
        with contextlib.suppress(Exception):
            logs = "; ".join(str(x.get("message"))[:160] for x in driver.get_log("browser"))
        return f"browser failed: {type(exc).__name__} {logs}"
    finally:
        driver.quit()


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, nargs="+", default=[1000, 10000, 100000])
    ap.add_argument("--name-bytes", type=int, default=0)
    ap.add_argument("--browser", action="store_true", help="time opening it in Chromium")
    ap.add_argument("--at", type=int, nargs="*", default=[], help="also view --at N")
    a = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-viewer-") as tmp:
        for n in a.events:
            lines = long_game(n, a.name_bytes)
            path = Path(tmp) / f"long-{n}.jsonl"
            path.write_bytes(b"".join(x + b"\n" for x in lines))
            out = Path(tmp) / f"long-{n}.html"
            for at in [None, *a.at]:
                code, dt, rss, size = measure(path, f"long-{n}", out, at)
                shown = open_in_browser(out) if a.browser and code == 0 else ""
                print(
                    f"events {len(lines):>9,}  log {path.stat().st_size / 2**20:8.2f} MiB  "
                    f"{'' if at is None else f'--at {at:,}  '}exit {code}  "
                    f"page {size / 2**20:9.2f} MiB  {dt:7.2f} s  peak RSS {rss:8.0f} MiB"
                    f"  {shown}",
                    flush=True,
                )
                out.unlink(missing_ok=True)


if __name__ == "__main__":
    main()
