"""The researcher's own texts and comprehension quiz, from files in the study folder (issue 25):

    STUDY/texts/consent.md        the consent page (else the built-in one)
    STUDY/texts/instructions.md   the instructions (else the built-in ones)
    STUDY/texts/end.md            the end page / debrief (else "Thank you! All your answers are saved.")
    STUDY/texts/quiz.json         a comprehension quiz that must be passed before the first trial (optional):
                                  [{"question": "...", "choices": ["...", "..."], "answer": 1}, ...]
    STUDY/texts/demographics.json optional questions after the last trial, each answerable or skipped:
                                  [{"question": "...", "choices": ["...", "..."]}, ...]
    STUDY/texts/comment.md        the prompt of an optional free-text comment after the last trial (no file: no
                                  comment box, so no free text, which could hold personal data, is asked for)

The texts are Markdown of a small subset (paragraphs, `#` headings, `-` lists, **bold**, *italics*), sent to the
page as text and built there with DOM text nodes, so no markup in a file (or anywhere) becomes HTML. They are read
when the study is opened (`serve` reads them at its start: edit, then restart). A participant who fails the quiz
reads the instructions again and retries; attempts are counted and exported. Bad files are refused in one line.
"""

from __future__ import annotations

import hashlib
import json
import os

from voebench.errors import UsageError

FOLDER = "texts"
PAGES = ("consent", "instructions", "end", "comment")
#: The largest text file read (a consent form is a few kB).
MAX_BYTES = 64 * 1024
MAX_QUESTIONS = 20
MAX_CHOICES = 8


def load(study_dir: str) -> dict:
    """{"pages": {name: markdown}, "quiz": [...] or None, "sha256": of everything read} from STUDY/texts/."""
    folder = os.path.join(study_dir, FOLDER)
    pages: dict[str, str] = {}
    h = hashlib.sha256()
    for name in PAGES:
        text = _read(os.path.join(folder, name + ".md"))
        if text is not None:
            if not text.strip():
                raise UsageError(f"{os.path.join(folder, name + '.md')}: empty; delete it to use the built-in text")
            pages[name] = text
            h.update(f"{name}\0{text}\0".encode())
    quiz = None
    raw = _read(os.path.join(folder, "quiz.json"))
    if raw is not None:
        quiz = check_quiz(os.path.join(folder, "quiz.json"), raw)
        h.update(f"quiz\0{raw}\0".encode())
    demographics = None
    raw = _read(os.path.join(folder, "demographics.json"))
    if raw is not None:
        demographics = check_quiz(os.path.join(folder, "demographics.json"), raw, answers=False)
        h.update(f"demographics\0{raw}\0".encode())
    return {
        "pages": pages,
        "quiz": quiz,
        "demographics": demographics,
        "sha256": h.hexdigest() if pages or quiz or demographics else None,
    }


def _read(path: str) -> str | None:
    if not os.path.exists(path):
        return None
    if os.path.getsize(path) > MAX_BYTES:
        raise UsageError(f"{path}: over {MAX_BYTES // 1024} kB; a page of the study should be short")
    try:
        with open(path, encoding="utf-8") as f:
            return f.read()
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text") from None


def check_quiz(path: str, raw: str, answers: bool = True) -> list[dict]:
    """The quiz, checked: 1..MAX_QUESTIONS questions, each a non-empty question, 2..MAX_CHOICES distinct
    non-empty choices and the index of the right one (`answers`; demographics have none)."""
    try:
        quiz = json.loads(raw)
    except ValueError as e:
        raise UsageError(f"{path}: not JSON ({e})") from None
    if not isinstance(quiz, list) or not 1 <= len(quiz) <= MAX_QUESTIONS:
        raise UsageError(f"{path}: must be a list of 1..{MAX_QUESTIONS} questions")
    for n, q in enumerate(quiz, 1):
        ok = (
            isinstance(q, dict)
            and set(q) == ({"question", "choices", "answer"} if answers else {"question", "choices"})
            and isinstance(q["question"], str)
            and q["question"].strip() != ""
            and isinstance(q["choices"], list)
            and 2 <= len(q["choices"]) <= MAX_CHOICES
            and all(isinstance(c, str) and c.strip() for c in q["choices"])
            and len(set(q["choices"])) == len(q["choices"])
            and (not answers or (type(q["answer"]) is int and 0 <= q["answer"] < len(q["choices"])))
        )
        if not ok:
            right = ', "answer": index of the right choice' if answers else ""
            raise UsageError(
                f'{path}: question {n} must be {{"question": text, "choices": [2..{MAX_CHOICES} different texts]'
                f"{right}}}"
            )
    return quiz


def public_quiz(quiz: list[dict]) -> list[dict]:
    """What the page gets: the questions and choices, never the answers."""
    return [{"question": q["question"], "choices": list(q["choices"])} for q in quiz]


def wrong_answers(quiz: list[dict], answers: list[int]) -> list[int]:
    """The (0-based) questions answered wrong."""
    return [i for i, (q, a) in enumerate(zip(quiz, answers)) if q["answer"] != a]
