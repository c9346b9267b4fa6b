"""``deepread serve``'s page used as a person uses it, in a real headless Chromium.

Debian's ``chromium`` driven through its ``chromium-driver`` by selenium (no browser
download: the driver's path is given, and selenium's manager is told to stay offline). A
real ``deepread serve`` process on a store holding the json module's PDF; the page asks
the README's question, shows the streamed answer, a citation is clicked, and the page
image it opens is loaded with the highlight inside the page — its pixels read back
through a canvas. Each of the three states is a screenshot; with
``SERVE_SCREENSHOTS_DIR`` set they are kept there (docs/ holds the ones made so).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest
from support.langgraph_server import free_port
from support.processes import deepread, deepread_command, environment

CHROMIUM = "/usr/bin/chromium"
DRIVER = "/usr/bin/chromedriver"
DOCS = Path(__file__).resolve().parents[1] / "data" / "docs"
QUESTION = "How do I make json.dumps sort the keys of dictionaries?"  # the README's

pytestmark = pytest.mark.slow

webdriver = pytest.importorskip("selenium.webdriver", reason="selenium is not installed")
if not (os.access(CHROMIUM, os.X_OK) and os.access(DRIVER, os.X_OK)):
    pytest.skip(
        "Debian's chromium and chromium-driver are not installed "
        "(apt-get install chromium chromium-driver)",
        allow_module_level=True,
    )


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory):
    root = tmp_path_factory.mktemp("serve")
    pdf = shutil.copy(DOCS / "library-json.pdf", root / "library-json.pdf")
    store = root / "store"
    env = environment()
    done = deepread("ingest", pdf, "--store", store, env=env, timeout=300)
    assert done.returncode == 0, done.stderr
    port = free_port()
    proc = subprocess.Popen(
        [*deepread_command(), "serve", "--store", str(store), "--port", str(port)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=(root / "serve.log").open("w"),
    )
    url = f"http://127.0.0.1:{port}/"
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                with urllib.request.urlopen(url + "api/library", timeout=2) as resp:
                    json.load(resp)
                break
            except OSError:
                if proc.poll() is not None or time.monotonic() > deadline:
                    pytest.fail((root / "serve.log").read_text())
                time.sleep(0.3)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=30)


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory):
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    os.environ["SE_OFFLINE"] = "true"  # selenium's manager never fetches a browser
    options = Options()
    options.binary_location = CHROMIUM
    for arg in (
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
        f"--user-data-dir={tmp_path_factory.mktemp('chromium')}",
        "--window-size=1400,900",
    ):
        options.add_argument(arg)
    driver = webdriver.Chrome(service=Service(DRIVER), options=options)
    try:
        yield driver
    finally:
        driver.quit()


def _shot(driver, name: str, tmp: Path) -> None:
    path = tmp / name
    driver.save_screenshot(str(path))
    keep = os.environ.get("SERVE_SCREENSHOTS_DIR")
    if keep:
        shutil.copy(path, Path(keep) / name)


#: Share of the pixels inside the first highlighted rectangle of the loaded page image
#: that are the highlighter's yellow, read back through a canvas (same origin).
HIGHLIGHT_SHARE = """
const img = document.querySelector('#viewer img.page');
const box = JSON.parse(img.dataset.boxes).find(b => img.src.endsWith('/' + b[0] + '.png'));
const c = document.createElement('canvas');
c.width = img.naturalWidth; c.height = img.naturalHeight;
const g = c.getContext('2d'); g.drawImage(img, 0, 0);
const s = 144 / 72;
const [x0, y0, x1, y1] = [box[1] * s + 3, box[2] * s + 3, box[3] * s - 3, box[4] * s - 3];
const inside = x0 >= 0 && y0 >= 0 && x1 <= c.width && y1 <= c.height;
const d = g.getImageData(x0, y0, x1 - x0, y1 - y0).data;
let yellow = 0;
for (let i = 0; i < d.length; i += 4)
  if (d[i] > 200 && d[i + 1] > 180 && d[i + 2] < 120) yellow++;
return {inside, share: yellow / (d.length / 4), width: c.width};
"""


def test_the_readmes_question_is_answered_and_a_citation_opens_its_page_highlighted(
    served, browser, tmp_path
):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, 120)
    browser.get(served)
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#library .doc")))
    assert "json" in browser.find_element(By.ID, "library").text.lower()
    _shot(browser, "serve-library.png", tmp_path)

    browser.find_element(By.ID, "question").send_keys(QUESTION)
    browser.find_element(By.ID, "ask-button").click()
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".turn.answered")))
    answer = browser.find_element(By.CSS_SELECTOR, ".turn .answer").text
    assert "sort_keys" in answer
    steps = browser.find_element(By.CSS_SELECTOR, ".turn .steps").text
    assert "retrieve" in steps  # the steps streamed beside the answer
    assert browser.find_elements(By.CSS_SELECTOR, "ol.citations a.cite")
    _shot(browser, "serve-answer.png", tmp_path)

    browser.find_element(By.CSS_SELECTOR, "ol.citations a.cite").click()
    wait.until(
        lambda d: d.execute_script(
            "const i = document.querySelector('#viewer img.page');"
            "return i && i.complete && i.naturalWidth > 0;"
        )
    )
    lit = browser.execute_script(HIGHLIGHT_SHARE)
    assert lit["inside"] and lit["width"] > 1000
    assert lit["share"] > 0.3
    _shot(browser, "serve-citation.png", tmp_path)


def test_a_second_question_continues_the_same_thread(served, browser):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    wait = WebDriverWait(browser, 120)
    browser.get(served)
    wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, "#library .doc")))
    for n, question in enumerate((QUESTION, "And how is NaN encoded?"), start=1):
        browser.find_element(By.ID, "question").send_keys(question)
        browser.find_element(By.ID, "ask-button").click()
        wait.until(lambda d, n=n: len(d.find_elements(By.CSS_SELECTOR, ".turn.answered")) == n)
        if n == 1:
            thread = browser.execute_script("return location.hash")
    assert thread.startswith("#thread=")
    assert browser.execute_script("return location.hash") == thread
    assert len(browser.find_elements(By.CSS_SELECTOR, ".turn")) == 2
