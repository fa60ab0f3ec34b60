"""Remake docs/viewer.png, the README's screenshot (run by hand: python docs/make_viewer_png.py).

Writes the viewer page of a sample dispute at its violation and photographs it in headless
Chromium from Debian's packages (the same flags as tests/test_viewer_browser.py).
"""

from __future__ import annotations

import subprocess
import sys
import tempfile
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

ROOT = Path(__file__).resolve().parent.parent
FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
         "--disable-background-networking", "--disable-component-update", "--disable-sync",
         "--window-size=1280,720"]  # fmt: skip


def main() -> None:
    page = Path(tempfile.mkdtemp()) / "viewer.html"
    subprocess.run(
        ["maumau-log", "view", "sample_logs/disputes/standard_seven_on_seven.mm",
         "club-2024-031", "--at", "6", "--out", str(page)],
        cwd=ROOT, check=True,
    )  # fmt: skip
    opts = webdriver.ChromeOptions()
    opts.binary_location = "/usr/bin/chromium"
    for flag in [*FLAGS, f"--user-data-dir={tempfile.mkdtemp()}"]:
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=opts)
    try:
        driver.get(page.as_uri())
        driver.save_screenshot(str(ROOT / "docs" / "viewer.png"))
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())
