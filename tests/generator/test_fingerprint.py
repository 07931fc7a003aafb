"""The code fingerprint (issue 27): it changes when what the code does can change, not when a comment, a blank
line or a docstring is edited, so such edits keep every rendered set resumable; prompts are outside it, versioned
by their words (`prompts_version`)."""

from __future__ import annotations

import os
import types

import pytest

from voebench.generator import fingerprint as fp
from voebench.generator.fingerprint import _digest, code_text
from voebench.generator.suite import load_suite

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


# ------------------------------------------------------------------------------------------ prompts outside


def _words(value) -> list[str]:
    """Every string a prompts module's value holds."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [w for v in value.values() for w in _words(v)]
    if isinstance(value, (list, tuple)):
        return [w for v in value for w in _words(v)]
    return []


def _string_literals(path: str) -> list[str]:
    """The plain string literals of a module's code (docstrings and f-strings left out)."""
    import ast
    import io
    import tokenize

    with open(path, encoding="utf-8") as f:
        source = f.read()
    docstrings = fp._docstring_starts(ast.parse(source))
    out = []
    for tok in tokenize.generate_tokens(io.StringIO(source).readline):
        if tok.type == tokenize.STRING and tok.start not in docstrings:
            value = ast.literal_eval(tok.string) if not tok.string.lstrip("rbuRBU").startswith(("f", "F")) else None
            if isinstance(value, str):
                out.append(value)
    return out


@pytest.mark.parametrize("suite_name", ["grasp-l1", "grasp-l2", "avoe", "newton", "predict"])
def test_prompts_are_outside_every_fingerprint(suite_name):
    """A reworded prompt keeps the code fingerprint: the prompts module is in no scene's files, the contract's
    prompt texts are not in the core, and no fingerprinted module still holds a piece of a prompt's words."""
    suite = load_suite(suite_name)
    module = fp.prompts_module(suite)
    assert module is not None and module.__file__ is not None
    files = {f for t in suite.tests for f in fp.scene_files(suite, t)} | {f for _, fs in fp.core_files() for f in fs}
    assert os.path.abspath(module.__file__) not in files
    assert not [f for f in files if f.endswith(os.path.join("contract", "prompts.py"))]
    words = [w for v in fp.prompts_values(module).values() for w in _words(v)]
    assert words
    pieces = [s for f in files for s in _string_literals(f) if len(s.split()) >= 3]  # three words or more
    assert [s for s in pieces if any(s in w for w in words)] == []


def _fake_suite(tmp_path, monkeypatch, name: str, prompts: str | None):
    """A suite package `name` on sys.path with `prompts` as its prompts module's source (None: no such module)."""
    package = tmp_path / name
    package.mkdir()
    (package / "__init__.py").write_text("")
    if prompts is not None:
        (package / "prompts.py").write_text(prompts)
    monkeypatch.syspath_prepend(str(tmp_path))
    return types.SimpleNamespace(package=name)


def test_the_prompts_version_follows_the_words_not_the_source(tmp_path, monkeypatch):
    base = fp.prompts_version(_fake_suite(tmp_path, monkeypatch, "h27_a", 'ASK = "Is it so?"\nN = {"x": ("a", 1)}\n'))
    same = '"""Other docs."""\nimport os\n\n# a comment\nASK = (\n    "Is it "\n    "so?"\n)\nN = {"x": ("a", 1)}\n'
    other = 'ASK = "Is it really so?"\nN = {"x": ("a", 1)}\n'
    assert base is not None and len(base) == 16
    assert fp.prompts_version(_fake_suite(tmp_path, monkeypatch, "h27_b", same)) == base
    assert fp.prompts_version(_fake_suite(tmp_path, monkeypatch, "h27_c", other)) != base
    assert fp.prompts_version(_fake_suite(tmp_path, monkeypatch, "h27_d", None)) is None
    broken = _fake_suite(tmp_path, monkeypatch, "h27_e", "import h27_no_such_module\n")
    with pytest.raises(ModuleNotFoundError, match="h27_no_such_module"):
        fp.prompts_version(broken)  # a prompts module that fails to import is an error, not "no prompts"
