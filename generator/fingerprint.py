"""Fingerprints of the code that makes the videos, so a folder is only resumed by the code that began it.

Two kinds, each a sha256 over the sorted (path relative to its package root, code) of a set of `.py` files (so
the value does not depend on where voebench is installed). The code of a file is its Python tokens without
comments, blank lines and docstrings (`code_text`): editing a comment or a docstring keeps every existing set
resumable, while any change to what the code does changes the fingerprint.

Prompts are not code: their words live as data in each suite's `prompts` module (`scenes/<suite>/prompts.py`, and
`voebench.contract.prompts` for a text the evaluator shares), which no fingerprint covers, since a reworded
question changes no video. What words a set carries is its **prompts version** instead (`prompts_version`: a hash
of the prompts module's values), recorded apart from the code as `identity.prompts`; a set asked in other words is
resumed only by `render --upgrade`, which rewrites its question texts without rendering (generator/rewording.py),
so one set never mixes two wordings. How a prompt's text is composed from those words (the suite's
`question_text`) is code, and stays in the fingerprint.

- **core**: every module of `voebench.generator` (recursively) except those that only read finished sets or
  parse the command line (`CORE_EXCLUDED`), plus every module of `voebench.contract` but its prompt texts
  (`CONTRACT_EXCLUDED`). A change here can change any video, so it changes every test.
- **scene** of one test: the test's own module (`suite.module(test)`; an AVoE sub-type's category module),
  every module of its suite package that is not some test's own module nor its prompts (shared code:
  `__init__.py`, `apparatus.py`, `motion.py`, `world.py`, ...), and the modules directly in `voebench.scenes`
  (`__init__.py`, `common.py`). Editing one test's module changes only that test; editing shared code changes
  every test of the suite (or of all suites, for `scenes/common.py`).

dataset.json records both (`identity.code`) and every HDF5 its own (`code_fingerprint`, `scene_fingerprint`);
dataset.json records the prompts version beside them (`identity.prompts`).
"""

from __future__ import annotations

import ast
import functools
import glob
import hashlib
import importlib
import io
import json
import os
import tokenize
from types import ModuleType

#: Modules of voebench.generator that never run while a video is made (paths relative to the package). The
#: audit is not among them: it decides which draws the generation gate keeps (generator/trial.py).
#: `rewording.py` runs only in `render --upgrade`, before any video is made, and changes texts, never videos.
CORE_EXCLUDED = ("cli.py", "preview.py", "verify.py", "progress.py", "limits.py", "rewording.py")
#: Modules of voebench.contract outside the core fingerprint: prompt texts (data; the prompts version covers them).
CONTRACT_EXCLUDED = ("prompts.py",)
#: The module of a suite package that holds its prompts' words (outside every scene fingerprint).
PROMPTS_MODULE = "prompts"


def _docstring_starts(tree: ast.AST) -> set[tuple[int, int]]:
    """(line, column) where each docstring of a module, class or function begins."""
    starts = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and node.body:
            first = node.body[0]
            if (
                isinstance(first, ast.Expr)
                and isinstance(first.value, ast.Constant)
                and isinstance(first.value.value, str)
            ):
                starts.add((first.value.lineno, first.value.col_offset))
    return starts


def code_text(data: bytes) -> bytes:
    """The part of a module's source that can change what it does: its tokens without comments, blank lines and
    docstrings (a docstring becomes an empty string, so the structure stays valid). A file that does not
    tokenize as Python is taken whole."""
    try:
        source = data.decode("utf-8")
        docstrings = _docstring_starts(ast.parse(source))
        out = []
        for tok in tokenize.generate_tokens(io.StringIO(source).readline):
            if tok.type in (tokenize.COMMENT, tokenize.NL):
                continue
            text = '""' if tok.type == tokenize.STRING and tok.start in docstrings else tok.string
            out.append(f"{tok.type}:{text}")
        return "\n".join(out).encode()
    except (SyntaxError, UnicodeDecodeError, tokenize.TokenError, ValueError):
        return data


def _digest(root: str, files) -> str:
    h = hashlib.sha256()
    for path in sorted(files, key=lambda p: os.path.relpath(p, root)):
        rel = os.path.relpath(path, root).replace(os.sep, "/")
        with open(path, "rb") as f:
            data = code_text(f.read())
        h.update(f"{rel}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()[:16]


def _py_files(folder: str, recursive: bool = True) -> list[str]:
    pattern = os.path.join(folder, "**", "*.py") if recursive else os.path.join(folder, "*.py")
    return [p for p in glob.glob(pattern, recursive=recursive) if "__pycache__" not in p]


def core_files() -> tuple[tuple[str, list[str]], ...]:
    """(package root, files) of the generator core and of the contract (see the module docstring)."""
    import voebench.contract
    import voebench.generator

    gen = os.path.dirname(voebench.generator.__file__)
    con = os.path.dirname(voebench.contract.__file__)

    def kept(p: str) -> bool:
        rel = os.path.relpath(p, gen).replace(os.sep, "/")
        return not any(rel == x or (x.endswith("/") and rel.startswith(x)) for x in CORE_EXCLUDED)

    contract = [p for p in _py_files(con) if os.path.relpath(p, con).replace(os.sep, "/") not in CONTRACT_EXCLUDED]
    return (gen, sorted(p for p in _py_files(gen) if kept(p))), (con, sorted(contract))


@functools.lru_cache(maxsize=1)
def core_fingerprint() -> str:
    h = hashlib.sha256()
    for root, files in core_files():
        h.update(_digest(root, files).encode())
    return h.hexdigest()[:16]


def _scenes_root(suite) -> str:
    """The folder above the suite's package (`scenes/` for the built-in suites), whose own modules (`common.py`,
    `__init__.py`) every suite shares. Found from the suite itself: the core never imports the scenes layer."""
    package = importlib.import_module(suite.package)
    if package.__file__ is None:
        raise ValueError(f"{suite.package}: a suite's scenes package needs an __init__.py")
    return os.path.dirname(os.path.dirname(os.path.abspath(package.__file__)))


def scene_files(suite, test: str) -> list[str]:
    """The files whose bytes make up `test`'s scene fingerprint (see the module docstring)."""
    own = os.path.abspath(suite.module(test).__file__)
    package = os.path.dirname(own)
    tests_own = {os.path.abspath(suite.module(t).__file__) for t in suite.tests}
    prompts = os.path.join(package, PROMPTS_MODULE + ".py")
    shared = [p for p in _py_files(package, recursive=False) if os.path.abspath(p) not in {*tests_own, prompts}]
    common = _py_files(_scenes_root(suite), recursive=False)
    return sorted({own, *map(os.path.abspath, shared), *map(os.path.abspath, common)})


@functools.cache
def _scene_fingerprint(suite_name: str, test: str) -> str:
    from voebench.generator.suite import load_suite

    suite = load_suite(suite_name)
    return _digest(_scenes_root(suite), scene_files(suite, test))


def scene_fingerprint(suite, test: str) -> str:
    return _scene_fingerprint(suite.name, test)


def code_identity(suite) -> dict:
    """`identity.code` of dataset.json: the core fingerprint and every test's scene fingerprint."""
    return {"core": core_fingerprint(), "tests": {t: scene_fingerprint(suite, t) for t in suite.tests}}


def prompts_module(suite) -> ModuleType | None:
    """The suite's prompts module (`<package>.prompts`); None for a suite that keeps no prompts module."""
    name = f"{suite.package}.{PROMPTS_MODULE}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as e:
        if e.name != name:
            raise  # the module exists but imports something missing: a real error
        return None


def _plain(value) -> bool:
    """Whether `value` is plain data (text, numbers, and tuples, lists and string-keyed dicts of them)."""
    if value is None or isinstance(value, (str, int, float, bool)):
        return True
    if isinstance(value, (tuple, list)):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


def prompts_values(module: ModuleType) -> dict:
    """The words a prompts module holds: its public names whose values are plain data, by name (imports,
    functions and `annotations` are not words)."""
    return {k: v for k, v in sorted(vars(module).items()) if not k.startswith("_") and _plain(v)}


def prompts_version(suite) -> str | None:
    """`identity.prompts` of dataset.json: a hash of the words of the suite's prompts module (None without one).
    It changes when a text changes, and not when a comment, a docstring or the source's layout does."""
    module = prompts_module(suite)
    if module is None:
        return None
    data = json.dumps(prompts_values(module), sort_keys=True, ensure_ascii=False).encode()
    return hashlib.sha256(data).hexdigest()[:16]


def h5_attrs(suite, test: str) -> dict:
    """The fingerprint attributes every HDF5 of `test` carries."""
    return {"code_fingerprint": core_fingerprint(), "scene_fingerprint": scene_fingerprint(suite, test)}


def changed_tests(old: dict | None, new: dict, tests) -> tuple[bool, list[str]]:
    """(whether the core changed, the tests among `tests` whose videos old code made) between two
    `identity.code` records; a missing old record counts as changed everywhere."""
    if not old:
        return True, sorted(tests)
    if old.get("core") != new["core"]:
        return True, sorted(tests)
    return False, sorted(t for t in tests if old.get("tests", {}).get(t) != new["tests"].get(t))
