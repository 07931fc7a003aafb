"""Checks every scoring command makes at its boundary, before it writes anything: bad input is one line and exit 2
(`UsageError`), never a traceback and never a half-written folder.

- `check_out_folder`: an output folder is written only where that cannot destroy someone else's files: it does not
  exist yet, it is empty, or it holds what the same command wrote there before (a run to resume or rewrite,
  recognised by the names in `marks`).
- `read_jsonl_objects` / `read_json_object`: a run's own files (samples.jsonl, run.json...) read strictly, so a
  corrupt run is named with its file and line instead of failing deep inside a report.

Only the standard library: the command modules import this before anything heavy.
"""

from __future__ import annotations

import fnmatch
import json
import os

from voebench.errors import UsageError

#: names an evaluation run folder holds (`voebench evaluate`, `predict`, `humans export`): run.json is written when
#: the run starts, cache.jsonl with the first answer
RUN_MARKS = ("run.json", "cache.jsonl", "samples.jsonl")


def run_kind(info: dict) -> str:
    """Which command wrote a run folder's run.json (they share the name and the folder layout)."""
    if info.get("kind") == "humans":
        return "humans export"
    if "models" in info:
        return "predict"
    if "protocol" in info:
        return "world-model"
    return "evaluate"


def check_out_folder(
    path: str, marks: tuple[str, ...] = RUN_MARKS, flag: str = "--out", kind: str | None = None
) -> None:
    """UsageError unless the command may write into `path`: absent, an empty folder, or a folder holding a name that
    matches one of `marks` (glob patterns of what the command writes there itself); with `kind` (see `run_kind`),
    a run.json there must be that command's (evaluate into a predict run would overwrite its samples.jsonl)."""
    if not os.path.exists(path):
        _check_creatable(path, flag)
        return
    if not os.path.isdir(path):
        raise UsageError(f"{flag} {path}: exists and is not a directory")
    if not os.access(path, os.W_OK | os.X_OK):
        raise UsageError(f"{flag} {path}: cannot write in this folder (permission denied)")
    try:
        names = os.listdir(path)
    except OSError as e:
        raise UsageError(f"{flag} {path}: cannot read the folder ({e.strerror})") from None
    if not names:
        return
    if any(fnmatch.fnmatch(n, m) for n in names for m in marks):
        if kind is not None and "run.json" in names:
            other = run_kind(read_json_object(os.path.join(path, "run.json")))
            if other != kind:
                article = "an" if other[0] in "aeiou" else "a"
                raise UsageError(f"{flag} {path}: holds {article} {other} run; choose a new or empty folder")
        return
    raise UsageError(
        f"{flag} {path}: a non-empty folder voebench did not write (no {marks[0]}); choose a new or empty folder"
    )


def _check_creatable(path: str, flag: str) -> None:
    """UsageError unless the folders up to `path` can be made: the nearest existing ancestor is a folder this
    process may write in (not a file, e.g. `--out set/manifest.jsonl/run`)."""
    parent = os.path.dirname(os.path.abspath(path))
    while not os.path.exists(parent):
        parent = os.path.dirname(parent)
    if not os.path.isdir(parent):
        raise UsageError(f"{flag} {path}: cannot be made, {parent} is a file")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise UsageError(f"{flag} {path}: cannot be made in {parent} (permission denied)")


def read_json_object(path: str) -> dict:
    """The JSON object in `path`; UsageError naming the file when it is unreadable or not one object."""
    try:
        with open(path, encoding="utf-8") as fh:
            data = json.load(fh)
    except (OSError, UnicodeDecodeError, ValueError):
        raise UsageError(f"{path}: unreadable or not JSON") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: not a JSON object")
    return data


def read_jsonl_objects(path: str) -> list[dict]:
    """Every record of a JSONL file (blank lines skipped); UsageError naming file and line when a line is not a
    JSON object."""
    out = []
    try:
        with open(path, encoding="utf-8") as fh:
            for n, line in enumerate(fh, 1):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                except ValueError:
                    raise UsageError(f"{path}:{n}: not JSON") from None
                if not isinstance(rec, dict):
                    raise UsageError(f"{path}:{n}: not a JSON object")
                out.append(rec)
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text") from None
    except OSError as e:
        raise UsageError(f"{path}: cannot read ({e.strerror})") from None
    return out


def count_jsonl_records(path: str, key: str) -> int:
    """How many lines of an append-only JSONL file (one a line as work finishes; a killed writer may leave a cut
    last line, which its reader skips) are JSON objects with `key`; UsageError when the file cannot be read."""
    n = 0
    try:
        with open(path, encoding="utf-8", errors="replace") as fh:
            for line in fh:
                try:
                    rec = json.loads(line) if line.strip() else None
                except ValueError:
                    continue
                n += isinstance(rec, dict) and key in rec
    except OSError as e:
        raise UsageError(f"{path}: cannot read ({e.strerror})") from None
    return n
