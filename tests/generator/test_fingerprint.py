"""The code fingerprint (issue 27): it changes when what the code does can change, not when a comment, a blank
line or a docstring is edited, so such edits keep every rendered set resumable."""

from __future__ import annotations

import os

from voebench.generator.fingerprint import _digest, code_text

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCENE = os.path.join(ROOT, "scenes", "grasp_l2", "t08_inertia_bounce.py")


def _fingerprint(tmp_path, text: str) -> str:
    path = tmp_path / "t08_inertia_bounce.py"
    path.write_text(text)
    return _digest(str(tmp_path), [str(path)])


def test_comments_blank_lines_and_docstrings_keep_the_fingerprint(tmp_path):
    src = open(SCENE).read()
    base = _fingerprint(tmp_path, src)
    edits = [
        src.replace('"""Test 8, Inertia:', '"""Test 8 (reworded), Inertia:'),  # the module docstring
        src.replace("def path(p, turn: float = 0.0):\n", "def path(p, turn: float = 0.0):  # a comment\n"),
        src.replace("\n\ndef track(", "\n\n\n# a new comment block\n\ndef track("),
        src.replace('"""The violation\'s size in degrees', '"""The size of the violation, in degrees'),
    ]
    for edited in edits:
        assert edited != src
        assert _fingerprint(tmp_path, edited) == base


def test_a_change_to_what_the_code_does_changes_it(tmp_path):
    src = open(SCENE).read()
    base = _fingerprint(tmp_path, src)
    for old, new in [
        ('"speed": Range(1.5, 2.5', '"speed": Range(1.5, 2.6'),  # the space
        ("return 2.0 * p.angle if", "return 2.5 * p.angle if"),  # the motion
        ('kind="reverse"', 'kind="reversed"'),  # a string that is not a docstring
    ]:
        assert old in src
        assert _fingerprint(tmp_path, src.replace(old, new)) != base


def test_a_file_that_is_not_python_is_taken_whole():
    assert code_text(b"def (:\n") == b"def (:\n"
    assert code_text(b"\xff\xfe") == b"\xff\xfe"
