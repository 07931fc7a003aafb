"""manifest.jsonl: one JSON object per video (docs/schema.md, "manifest.jsonl").

- `read_manifest` is strict: a line that is not a JSON object with every required key raises `ContractError`
  naming the file and line. The one exception is a last line without its newline that does not parse: that is
  what a run killed mid-append leaves, and the generator's own resume tolerates it (`truncated="ignore"`);
  readers of a finished set (`verify`, `evaluate`, `audit`) refuse it (`truncated="error"`).
- `write_manifest` rewrites a manifest atomically, sorted by id.
- `Appender` appends lines as videos finish, after cutting off a truncated tail so a new line never glues onto
  half of an old one.
"""

from __future__ import annotations

import glob
import json
import os

from voebench.contract import ContractError
from voebench.contract.prompts import PREDICTION_VIDEO_QUERY as PREDICTION_VIDEO_QUERY  # owned by contract/prompts

NAME = "manifest.jsonl"
SHARD_PATTERN = "manifest-shard-*-of-*.jsonl"

#: Keys every entry has (all suites).
REQUIRED_KEYS = (
    "id",
    "suite",
    "test",
    "index",
    "condition",
    "pair_id",
    "seed",
    "video",
    "states",
    "n_frames",
    "fps",
    "width",
    "height",
    "prompts",
    "description",
    "violation",
    "params",
)
#: Keys only some suites write (Level 1: `label`; Level 2: `test_number`, `principles`; AVoE: `category`,
#: `subtype`, `split`, `labels`; paired suites: `pair_conditions`; written by the generation gate since schema
#: 2, absent from older files and hand-made fixtures: `attempt`, `rejected`; the predict suite: `prediction`;
#: graded tests (issue 24): `violation_level`, `violation_unit`; sweeps:
#: `sweep_levels`, and `sweep_rank` on the violated videos, whose `pair_conditions` name them `implausible-<rank>`).
OPTIONAL_KEYS = (
    "label",
    "test_number",
    "principles",
    "category",
    "subtype",
    "split",
    "labels",
    "pair_conditions",
    "attempt",
    "rejected",
    "prediction",
    "violation_level",
    "violation_unit",
    "sweep_levels",
    "sweep_rank",
)
KEYS = REQUIRED_KEYS + OPTIONAL_KEYS

#: Keys of one entry of `prompts`.
PROMPT_KEYS = ("kind", "polarity", "text", "answer", "observation", "choices", "meta")
PROMPT_REQUIRED_KEYS = ("kind", "text", "answer")
PROMPT_KINDS = ("binary", "open", "plausibility", "choice", "prediction")

#: Keys of `params`.
PARAMS_KEYS = ("sampled", "config")


def _check(entry, where: str, required) -> dict:
    if not isinstance(entry, dict):
        raise ContractError(f"{where}: not a JSON object; the manifest is corrupt")
    missing = [k for k in required if k not in entry]
    if missing:
        raise ContractError(f"{where}: manifest entry lacks {', '.join(missing)} (docs/schema.md)")
    if not isinstance(entry["id"], str) or not isinstance(entry["prompts"], list):
        raise ContractError(f"{where}: `id` must be a string and `prompts` a list")
    for p in entry["prompts"]:
        if not isinstance(p, dict) or any(k not in p for k in PROMPT_REQUIRED_KEYS):
            raise ContractError(f"{where}: a prompt lacks {', '.join(PROMPT_REQUIRED_KEYS)}")
    return entry


def read_manifest(path: str, truncated: str = "error", required=REQUIRED_KEYS) -> list[dict]:
    """Every entry of the manifest at `path`, in file order. `truncated`: "ignore" skips a last line cut short
    by a kill (no newline, not JSON); "error" refuses it. `required`: the keys each entry must have (readers
    that need less, e.g. the fixture sets of the tests, may pass fewer)."""
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        raise ContractError(f"{path}: unreadable ({e.strerror})") from None
    lines = data.split(b"\n")
    out = []
    for n, raw in enumerate(lines, 1):
        last = n == len(lines)  # the text after the final newline (empty for a well-formed file)
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            if last and truncated == "ignore":
                continue
            if last:
                raise ContractError(
                    f"{path}:{n}: last line cut short (a killed run?); run `voebench render` again to finish the set"
                ) from None
            raise ContractError(f"{path}:{n}: not JSON; the manifest is corrupt") from None
        out.append(_check(entry, f"{path}:{n}", required))
    return out


def by_id(entries: list[dict]) -> dict[str, dict]:
    """Entries keyed by id; a later line for the same id (a video made again) replaces an earlier one."""
    return {e["id"]: e for e in entries}


def duplicate_ids(entries: list[dict]) -> list[str]:
    seen, dup = set(), []
    for e in entries:
        if e["id"] in seen:
            dup.append(e["id"])
        seen.add(e["id"])
    return dup


def manifest_paths(root: str) -> list[str]:
    """The manifest and any shard manifests in `root` (those that exist)."""
    main = os.path.join(root, NAME)
    return ([main] if os.path.exists(main) else []) + sorted(glob.glob(os.path.join(root, SHARD_PATTERN)))


def dumps(entry: dict) -> str:
    return json.dumps(entry)


def write_manifest(path: str, entries) -> None:
    """Rewrite `path` with `entries` sorted by id, atomically (a temporary file renamed over it)."""
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        for e in sorted(entries, key=lambda e: e["id"]):
            f.write(dumps(e) + "\n")
    os.replace(tmp, path)


def trim_truncated_tail(path: str) -> None:
    """Cut a last line that has no newline (a kill mid-append) off `path`, so appending starts a fresh line."""
    if not os.path.exists(path):
        return
    with open(path, "rb+") as f:
        data = f.read()
        if data and not data.endswith(b"\n"):
            f.truncate(data.rfind(b"\n") + 1)


class Appender:
    """Appends one line per finished video and flushes it, so a kill loses at most the line being written."""

    def __init__(self, path: str):
        trim_truncated_tail(path)
        self.f = open(path, "a")  # noqa: SIM115  (closed by close() / the context manager)

    def append(self, entry: dict) -> None:
        self.f.write(dumps(entry) + "\n")
        self.f.flush()

    def close(self) -> None:
        self.f.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
