"""A whole participant session in a real headless Chromium (Debian's `chromium` and `chromedriver`, driven by
selenium): consent, instructions, practice with feedback, yes/no trials, an attention check, a reload mid-session
that resumes at the same trial, the end page; then an AVoE session with familiarization and the surprise slider.
Every click is checked against what the study stored, and the videos must really play in the browser.

Screenshots of each page kind go to $VOEBENCH_SCREENSHOTS when set (docs/img/ for docs/humans.md:
`VOEBENCH_SCREENSHOTS=docs/img pytest tests/evaluate/test_humans_browser.py`), else to a temporary folder.
"""

from __future__ import annotations

import os
import shutil

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
DRIVER = shutil.which("chromedriver")

pytestmark = pytest.mark.skipif(
    not (CHROMIUM and DRIVER),
    reason="needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver; .ci/run does)",
)


@pytest.fixture(scope="module")
def browser():
    webdriver = pytest.importorskip("selenium.webdriver", reason="needs selenium (pip install 'voebench[test]')")
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for a in (
        "--headless=new",
        "--no-sandbox",  # CI runs as root
        "--disable-dev-shm-usage",
        "--window-size=820,900",
        "--autoplay-policy=no-user-gesture-required",
    ):
        opts.add_argument(a)
    driver = webdriver.Chrome(options=opts, service=Service(DRIVER))
    yield driver
    driver.quit()


@pytest.fixture
def shots(tmp_path):
    out = os.environ.get("VOEBENCH_SCREENSHOTS") or str(tmp_path / "shots")
    os.makedirs(out, exist_ok=True)
    return out


def _page(driver):
    from selenium.webdriver.common.by import By

    app = driver.find_element(By.ID, "app")
    return app.get_attribute("data-page"), app.get_attribute("data-position")


def _wait_page(driver, kinds, position=None, timeout=15):
    from selenium.webdriver.support.ui import WebDriverWait

    def ready(d):
        try:
            kind, pos = _page(d)
        except Exception:  # noqa: BLE001 - the page is being replaced
            return False
        return kind in kinds and (position is None or pos == str(position))

    WebDriverWait(driver, timeout).until(ready)
    return _page(driver)[0]


def _wait_enabled(driver, element_id, timeout=15):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import WebDriverWait

    WebDriverWait(driver, timeout).until(lambda d: d.find_element(By.ID, element_id).is_enabled())
    return driver.find_element(By.ID, element_id)


def _load_source(driver, url, timeout=15):
    """The page's HTML once the browser shows one. CI's Chromium once returned an empty page_source right
    after get() of a 404 page (a load still being committed); wait for it, and load once more if it stays blank."""
    from selenium.webdriver.support.ui import WebDriverWait

    for _ in range(2):
        driver.get(url)
        try:
            WebDriverWait(driver, timeout / 2).until(lambda d: "</main>" in d.page_source)
        except Exception:  # noqa: BLE001 - selenium's TimeoutException: try one more load, then report what shows
            continue
        break
    return driver.page_source


def _study(tmp_path, tiny_set, *args):
    from humans_fixtures import Server

    from voebench.evaluate.humans.store import Study

    study_dir = str(tmp_path / "study")
    server = Server(tiny_set, study_dir, *args).start()
    s = Study(study_dir)
    token = s.tokens()[0][1]
    plan = {a["position"]: a["trial"] for a in s.answers()}
    s.close()
    return server, study_dir, token, plan


def _stored(study_dir):
    from voebench.evaluate.humans.store import Study

    s = Study(study_dir)
    rows = s.answers()
    s.close()
    return {a["position"]: a for a in rows}


def test_grasp_session_in_chromium(browser, tiny_set, tmp_path, shots):
    from selenium.webdriver.common.by import By

    server, study_dir, token, plan = _study(
        tmp_path,
        tiny_set,
        "--protocol",
        "grasp",
        "--participants",
        "1",
        "--votes",
        "1",
        "--suite",
        "grasp-l2",
        "--twins",
    )  # one participant judges the one pair left after practice: both videos, so --twins
    try:
        d = browser
        # an unknown link: a clear error page, nothing else
        assert "This link does not work" in _load_source(d, f"{server.base}/p/{'x' * 32}")
        d.save_screenshot(os.path.join(shots, "humans-unknown-link.png"))

        d.get(f"{server.base}/p/{token}")
        _wait_page(d, {"consent"})
        d.save_screenshot(os.path.join(shots, "humans-consent.png"))
        d.find_element(By.ID, "agree").click()
        _wait_page(d, {"instructions"})
        d.save_screenshot(os.path.join(shots, "humans-instructions.png"))
        d.find_element(By.ID, "start").click()

        clicked = {}
        seen = set()
        reloaded = False
        for position in range(len(plan)):
            trial = plan[position]
            kind = _wait_page(d, {"practice", "trial"}, position)
            assert kind == ("practice" if trial["phase"] == "practice" else "trial")
            question = d.find_element(By.ID, "question").text
            assert question == trial["question"]
            if trial["phase"] == "attention":
                value = trial["expect"]
            else:  # right on two trials of three
                value = trial["truth"] if position % 3 else ("no" if trial["truth"] == "yes" else "yes")
            button = _wait_enabled(d, value)  # enabled only once the video has played to its end
            shot = {"practice": "humans-practice", "attention": "humans-attention-check", "main": "humans-trial-yesno"}
            if shot[trial["phase"]] not in seen:
                seen.add(shot[trial["phase"]])
                d.save_screenshot(os.path.join(shots, shot[trial["phase"]] + ".png"))
            button.click()
            clicked[position] = value
            if trial["phase"] == "practice":
                _wait_page(d, {"feedback"})
                if "humans-feedback" not in seen:
                    seen.add("humans-feedback")
                    d.save_screenshot(os.path.join(shots, "humans-feedback.png"))
                d.find_element(By.ID, "next").click()
            if position == 3 and not reloaded:  # a reload resumes at the first unanswered trial
                _wait_page(d, {"practice", "trial"}, 4)
                d.refresh()
                _wait_page(d, {"practice", "trial"}, 4)
                reloaded = True
        _wait_page(d, {"done"})
        progress = d.find_element(By.ID, "progress-text").text
        assert progress == f"{len(plan)} / {len(plan)}"
        d.save_screenshot(os.path.join(shots, "humans-done.png"))
    finally:
        server.stop()
    stored = _stored(study_dir)
    assert {p: a["answer"] for p, a in stored.items()} == clicked
    videos = [a for a in stored.values() if a["trial"].get("video")]
    assert videos and all(a["media"]["played"] and not a["media"]["error"] for a in videos), "a video did not play"
    assert all(a["rt_ms"] > 0 for a in stored.values())


def test_avoe_session_with_slider(browser, tiny_set, tmp_path, shots):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    server, study_dir, token, plan = _study(
        tmp_path,
        tiny_set,
        "--protocol",
        "avoe",
        "--participants",
        "1",
        "--suite",
        "avoe",
        "--familiarization",
        "1",
        "--attention-checks",
        "1",
        "--repeat-fraction",
        "0.25",
    )
    try:
        d = browser
        d.get(f"{server.base}/p/{token}")
        _wait_page(d, {"consent"})
        d.find_element(By.ID, "agree").click()
        _wait_page(d, {"instructions"})
        d.find_element(By.ID, "start").click()
        clicked = {}
        seen = set()
        for position in range(len(plan)):
            trial = plan[position]
            _wait_page(d, {"practice", "trial"}, position)
            if trial["response"] == "watch":
                if "watch" not in seen:
                    seen.add("watch")
                    d.save_screenshot(os.path.join(shots, "humans-familiarization.png"))
                _wait_enabled(d, "continue").click()
                clicked[position] = "continue"
                continue
            submit = d.find_element(By.ID, "submit")
            assert not submit.is_enabled()  # the thumb has to move first
            slider = _wait_enabled(d, "rating")
            if trial["phase"] == "attention":
                key, value = (Keys.HOME, 0) if trial["expect"] == "left" else (Keys.END, 100)
            else:  # surprising videos to the right
                key, value = (Keys.END, 100) if trial["truth"] == "no" else (Keys.HOME, 0)
            slider.send_keys(key)
            _wait_enabled(d, "submit")
            if "slider" not in seen and trial["phase"] != "attention":
                seen.add("slider")
                d.save_screenshot(os.path.join(shots, "humans-trial-slider.png"))
            d.find_element(By.ID, "submit").click()
            clicked[position] = value
        _wait_page(d, {"done"})
    finally:
        server.stop()
    stored = _stored(study_dir)
    assert {p: a["answer"] for p, a in stored.items()} == clicked
    assert any(a["trial"]["phase"] == "repeat" for a in stored.values())


def test_slider_needs_a_move_and_the_middle_is_an_answer(browser, tiny_set, tmp_path):
    """Issue 25, defect 6: an untouched slider cannot be submitted and the page says why; moved away and back to
    the middle, it can, and the middle (50) is stored and exported as a valid answer."""
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    from voebench.evaluate.humans.export import parse

    server, study_dir, token, plan = _study(
        tmp_path, tiny_set, "--protocol", "avoe", "--participants", "1", "--suite", "avoe",
        "--familiarization", "0", "--attention-checks", "0", "--repeat-fraction", "0",
    )  # fmt: skip
    try:
        d = browser
        d.get(f"{server.base}/p/{token}")
        _wait_page(d, {"consent"})
        d.find_element(By.ID, "agree").click()
        _wait_page(d, {"instructions"})
        d.find_element(By.ID, "start").click()
        for position in range(len(plan)):
            _wait_page(d, {"trial"}, position)
            slider = _wait_enabled(d, "rating")  # the video has played
            submit = d.find_element(By.ID, "submit")
            hint = d.find_element(By.ID, "move-hint")
            assert not submit.is_enabled() and hint.is_displayed() and "Move the slider" in hint.text
            submit_clicked = d.execute_script("document.getElementById('submit').click(); return true;")
            assert submit_clicked and _page(d) == ("trial", str(position))  # nothing sent
            slider.send_keys(Keys.ARROW_RIGHT)
            slider.send_keys(Keys.ARROW_LEFT)  # back to the middle
            assert slider.get_attribute("value") == "50"
            assert not hint.is_displayed()
            _wait_enabled(d, "submit").click()
        _wait_page(d, {"done"})
    finally:
        server.stop()
    stored = _stored(study_dir)
    assert [a["answer"] for a in stored.values()] == [50] * len(plan)
    assert all(parse(a["trial"], a["answer"])[:2] == ("middle", True) for a in stored.values())
