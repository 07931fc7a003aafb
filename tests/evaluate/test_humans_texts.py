"""The researcher's texts and comprehension quiz (issue 25): consent, instructions and end page from
STUDY/texts/*.md, a quiz from STUDY/texts/quiz.json that must be passed before any trial (attempts counted and
exported), bad files refused in one line. The page's rendering (text nodes only) is in test_humans_browser.py."""

from __future__ import annotations

import json
import os

import pytest

QUIZ = [
    {"question": "When do the answer buttons unlock?", "choices": ["At once", "When the video has ended"], "answer": 1},
    {"question": "Which key means yes?", "choices": ["The one shown on the Yes button", "Space"], "answer": 0},
]


def write_texts(study_dir: str, quiz=QUIZ, **pages: str) -> None:
    folder = os.path.join(study_dir, "texts")
    os.makedirs(folder, exist_ok=True)
    for name, text in pages.items():
        with open(os.path.join(folder, name + ".md"), "w", encoding="utf-8") as f:
            f.write(text)
    if quiz is not None:
        with open(os.path.join(folder, "quiz.json"), "w", encoding="utf-8") as f:
            json.dump(quiz, f)


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("quiz.json", "[{", "not JSON"),
        ("quiz.json", "[]", "must be a list of 1..20 questions"),
        ("quiz.json", json.dumps([{**QUIZ[0], "answer": 2}]), "question 1 must be"),
        ("quiz.json", json.dumps([{**QUIZ[0], "answer": True}]), "question 1 must be"),
        ("quiz.json", json.dumps([QUIZ[0], {**QUIZ[1], "choices": ["a", "a"]}]), "question 2 must be"),
        ("quiz.json", json.dumps([{**QUIZ[0], "hint": "x"}]), "question 1 must be"),
        ("consent.md", "  \n", "empty; delete it to use the built-in text"),
        ("end.md", b"\xff\xfe bad", "not UTF-8 text"),
        ("instructions.md", "x" * (64 * 1024 + 1), "over 64 kB"),
    ],
)
def test_bad_text_files_are_refused_in_one_line(tiny_set, tmp_path, name, content, message):
    from conftest import voebench

    study_dir = str(tmp_path / "study")
    args = ("humans", "serve", tiny_set, "--study", study_dir, "--create-only")
    voebench(*args, "--protocol", "grasp", "--participants", "1", "--votes", "1", "--suite", "grasp-l2", "--twins")
    os.makedirs(os.path.join(study_dir, "texts"))
    with open(os.path.join(study_dir, "texts", name), "wb") as f:
        f.write(content if isinstance(content, bytes) else content.encode())
    proc = voebench(*args, check=False)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and message in proc.stderr, proc.stderr
    assert "Traceback" not in proc.stderr


def test_texts_and_quiz_over_http(tiny_set, tmp_path):
    from humans_fixtures import Server, request

    from voebench.evaluate.humans.export import export

    study_dir = str(tmp_path / "study")
    args = ("--protocol", "grasp", "--participants", "1", "--votes", "1", "--suite", "grasp-l2", "--twins")
    write_texts(study_dir, consent="# Our study\n\nConsent text.", instructions="Read me.", end="Debrief: thanks.")
    server = Server(tiny_set, study_dir, *args).start()
    try:
        from voebench.evaluate.humans.store import Study

        s = Study(study_dir)
        token = s.tokens()[0][1]
        s.close()

        def api(method, what, body=None):
            status, data, _ = request(server.base, method, f"/api/{token}/{what}", body)
            return status, data

        state = api("GET", "state")[1]
        assert (state["stage"], state["text"]) == ("consent", "# Our study\n\nConsent text.")
        assert api("POST", "quiz", {"answers": [1, 0]})[0] == 409  # not before consent and instructions
        api("POST", "consent", {"consent": True})
        assert api("GET", "state")[1]["text"] == "Read me."
        state = api("POST", "instructions", {})[1]
        assert state["stage"] == "quiz" and state["text"] == "Read me."
        assert state["quiz"] == [{"question": q["question"], "choices": q["choices"]} for q in QUIZ]  # no answers
        # no trial before the quiz is passed
        assert api("GET", "video/0")[0] == 403
        assert api("POST", "answer", {"position": 0, "answer": "yes"})[0] == 409
        for bad in ([1], [1, 0, 0], [1, "0"], [1, True], [1, -1]):
            status, data = api("POST", "quiz", {"answers": bad})
            assert status == 400 and data == {"error": "answers must be 2 choice numbers"}, bad
        status, data = api("POST", "quiz", {"answers": [0, 0]})
        assert status == 200 and (data["passed"], data["wrong"], data["stage"]) == (False, [0], "quiz")
        status, data = api("POST", "quiz", {"answers": [1, 0]})
        assert (data["passed"], data["wrong"], data["stage"]) == (True, [], "trial")
        assert api("POST", "quiz", {"answers": [1, 0]}) == (409, {"error": "the quiz was already passed"})
        while (state := api("GET", "state")[1])["stage"] == "trial":
            t = state["trial"]
            assert api("POST", "answer", {"position": t["position"], "answer": "yes"})[0] == 200
        assert (state["stage"], state["text"]) == ("done", "Debrief: thanks.")
    finally:
        server.stop()
    out = str(tmp_path / "run")
    export(study_dir, out)
    with open(os.path.join(out, "run.json")) as f:
        assert json.load(f)["humans"]["participants"][0]["quiz_attempts"] == 2


def test_no_texts_no_quiz(tiny_set, tmp_path):
    """Without a texts folder the built-in pages are used (no `text`) and the trials follow the instructions."""
    from voebench.evaluate.humans import study
    from voebench.evaluate.humans.design import default_design
    from voebench.evaluate.humans.store import Refused

    s = study.create(
        tiny_set, str(tmp_path / "study"), default_design("grasp", 1, votes=1, suites=["grasp-l2"], twins=True)
    )
    try:
        token = s.tokens()[0][1]
        assert s.state(token)["text"] is None
        s.consent(token, True)
        s.instructions(token)
        assert s.state(token)["stage"] == "trial"
        with pytest.raises(Refused, match="no quiz to answer"):
            s.quiz(token, [0])
    finally:
        s.close()


DEMOGRAPHICS = [
    {"question": "Age group", "choices": ["18-29", "30-49", "50+"]},
    {"question": "Glasses?", "choices": ["yes", "no"]},
]
COMMENT = '=HYPERLINK("http://x","click") <script>alert(1)</script>, "quoted"\nsecond line'


def test_optional_questions_and_comment_after_the_last_trial(tiny_set, tmp_path):
    """Demographics (each skippable) and a free-text comment after the last trial, where the study asks; stored as
    typed, exported in run.json as JSON and in participants.csv with a formula-looking comment made text."""
    import csv

    from humans_fixtures import Server, request

    from voebench.evaluate.humans.export import export

    study_dir = str(tmp_path / "study")
    write_texts(study_dir, quiz=None, comment="Anything to tell us?")
    with open(os.path.join(study_dir, "texts", "demographics.json"), "w") as f:
        json.dump(DEMOGRAPHICS, f)
    args = ("--protocol", "grasp", "--participants", "2", "--votes", "1", "--suite", "grasp-l2", "--twins")
    server = Server(tiny_set, study_dir, *args).start()
    try:
        from voebench.evaluate.humans.store import Study

        s = Study(study_dir)
        tokens = [t for _, t in s.tokens()]
        s.close()
        for n, token in enumerate(tokens):

            def api(method, what, body=None, token=token):
                status, data, _ = request(server.base, method, f"/api/{token}/{what}", body)
                return status, data

            api("POST", "consent", {"consent": True})
            api("POST", "instructions", {})
            body = {"demographics": [0, None], "comment": COMMENT}
            assert api("POST", "about", body) == (409, {"error": "these questions come after the last trial"})
            while (state := api("GET", "state")[1])["stage"] == "trial":
                assert api("POST", "answer", {"position": state["trial"]["position"], "answer": "yes"})[0] == 200
            assert state["stage"] == "about" and state["comment"] == "Anything to tell us?"
            assert state["demographics"] == DEMOGRAPHICS
            for bad, why in (
                ({"demographics": [3, None]}, "demographics must be 2 choice numbers or null"),
                ({"demographics": [0]}, "demographics must be 2 choice numbers or null"),
                ({"demographics": [True, None]}, "demographics must be 2 choice numbers or null"),
                ({"comment": "x" * 1001}, "comment must be text of at most 1000 characters"),
                ({"comment": "nul\x00"}, "comment must be text of at most 1000 characters"),
                ({"comment": 5}, "field comment has the wrong type"),
            ):
                assert api("POST", "about", bad) == (400, {"error": why}), bad
            if n == 0:
                assert api("POST", "about", body)[1]["stage"] == "done"
            else:  # everything skipped
                assert api("POST", "about", {"demographics": [None, None], "comment": None})[1]["stage"] == "done"
            assert api("POST", "about", body) == (409, {"error": "already sent"})
    finally:
        server.stop()
    out = str(tmp_path / "run")
    export(study_dir, out)
    with open(os.path.join(out, "run.json")) as f:
        people = json.load(f)["humans"]["participants"]
    assert people[0]["demographics"] == {"Age group": "18-29", "Glasses?": None} and people[0]["comment"] == COMMENT
    assert people[1]["demographics"] == {"Age group": None, "Glasses?": None} and people[1]["comment"] is None
    with open(os.path.join(out, "participants.csv"), newline="", encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    assert rows[0]["comment"] == "'" + COMMENT  # a spreadsheet shows it as text, not a formula; the line break kept
    assert (rows[0]["Age group"], rows[0]["Glasses?"], rows[1]["comment"]) == ("18-29", "", "")


def test_no_comment_box_unless_asked(tiny_set, tmp_path):
    from voebench.evaluate.humans import study
    from voebench.evaluate.humans.design import default_design
    from voebench.evaluate.humans.store import Refused

    study_dir = str(tmp_path / "study")
    s = study.create(tiny_set, study_dir, default_design("grasp", 1, votes=1, suites=["grasp-l2"], twins=True))
    try:
        token = s.tokens()[0][1]
        with pytest.raises(Refused, match="this study asks for no comment"):
            s.about(token, None, "hello")
    finally:
        s.close()
