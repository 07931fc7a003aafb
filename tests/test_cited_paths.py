"""Every repository path that the code's comments and the docs cite exists, and none points outside the project.

A comment that says "see generator/audit.py" or "measured in docs/performance.md" is only useful while that
file is there; after a rename or a split (audit.py became a package, say) the citation must move too. Files of
the workplace that the project does not ship (../shared/reference/...) are not citable: their facts live in docs/
(docs/scene-facts.md, docs/bpy-notes.md)."""

from __future__ import annotations

import glob
import os
import re
import subprocess

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Top-level folders of the project that a citation starts with (renders/ and runs/ hold outputs, not sources).
FOLDERS = ("generator", "scenes", "evaluate", "src", "voebench", "docs", "bench", "tests", ".ci")
_FOLDER = "|".join(re.escape(f) for f in FOLDERS)
CITED = re.compile(rf"(?<![\w./-])((?:{_FOLDER})/[\w.*<>/-]*[\w*>/])")
# Links inside docs/*.md and README.md: [text](target), relative to the markdown file.
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")
OUTSIDE = re.compile(r"(\.\./shared/|/work/shared/|shared/reference/)")
# The reference notes now in docs/ are cited by path, so the citation above can check they exist.
BARE_NOTE = re.compile(r"(?<![\w/.-])(scene-facts|bpy-notes)(?!\.md)")
TEXT_SUFFIXES = (".py", ".md", ".toml", ".yaml", ".yml", ".cfg", ".txt")
# The changelog names paths that were moved or removed, on purpose; this file names paths that must not exist.
NOT_SCANNED = ("CHANGELOG.md", "tests/test_cited_paths.py")


def tracked_text_files() -> list[str]:
    out = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True)
    if out.returncode != 0:
        pytest.skip("not a git checkout")
    names = [n for n in out.stdout.splitlines() if n.endswith(TEXT_SUFFIXES) or n in ("Makefile", ".ci/run")]
    return [n for n in names if os.path.isfile(os.path.join(ROOT, n)) and n not in NOT_SCANNED]


def exists(path: str) -> bool:
    """A cited path exists; `<placeholder>` segments and `*` globs match any name."""
    pattern = re.sub(r"<[^>/]*>", "*", path.rstrip("/").rstrip("."))
    if "*" in pattern:
        return bool(glob.glob(os.path.join(ROOT, pattern), recursive=True))
    return os.path.exists(os.path.join(ROOT, pattern))


def citations(name: str, text: str):
    for lineno, line in enumerate(text.splitlines(), 1):
        for m in CITED.finditer(line):
            yield lineno, m.group(1)
        if name.endswith(".md"):
            for m in LINK.finditer(line):
                target = m.group(1)
                if "://" in target or target.startswith("mailto:"):
                    continue
                rel = os.path.normpath(os.path.join(os.path.dirname(name), target))
                yield lineno, rel


def test_every_cited_path_exists():
    missing = []
    for name in tracked_text_files():
        with open(os.path.join(ROOT, name), encoding="utf-8", errors="replace") as fh:
            text = fh.read()
        for lineno, path in citations(name, text):
            if not exists(path):
                missing.append(f"{name}:{lineno}: {path}")
    assert not missing, "cited but not in the repository:\n" + "\n".join(missing)


def test_no_citation_points_outside_the_project():
    outside = []
    for name in tracked_text_files():
        with open(os.path.join(ROOT, name), encoding="utf-8", errors="replace") as fh:
            for lineno, line in enumerate(fh, 1):
                if OUTSIDE.search(line) or BARE_NOTE.search(line):
                    outside.append(f"{name}:{lineno}: {line.strip()[:100]}")
    assert not outside, "cites files the project does not ship (bring the facts into docs/):\n" + "\n".join(outside)


def test_the_scanner_finds_citations():
    # the patterns must see the forms the project uses, or the tests above pass on nothing
    found = [
        p
        for _, p in citations(
            "docs/x.md", "see `generator/audit.py`, docs/schema.md and [a](b.md); grasp/tests/test.py is not ours"
        )
    ]
    assert found == ["generator/audit.py", "docs/schema.md", "docs/b.md"]
    assert exists("scenes/<suite>/") and exists("tests/test_*.py") and not exists("generator/no_such_file.py")
    assert BARE_NOTE.search("see bpy-notes") and not BARE_NOTE.search("see docs/bpy-notes.md")
