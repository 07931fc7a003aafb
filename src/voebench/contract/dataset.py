"""dataset.json: which dataset a folder holds (docs/schema.md, "dataset.json").

Written by the generator before anything renders and checked on every later run, so a folder is only ever
resumed by the same settings and the same code. `read_dataset` refuses a file voebench did not write (no
`written_by: "voebench"`), one from the release before the marker existed, and one of another schema version.
"""

from __future__ import annotations

import json
import os

from voebench.contract import SCHEMA_VERSION, WRITTEN_BY, ContractError

NAME = "dataset.json"

#: Top-level keys.
KEYS = ("written_by", "schema_version", "generator_version", "schema", "suites")
#: Keys of `suites.<suite>`.
SUITE_KEYS = ("identity", "tests", "trials_per_test")
#: Written at the end of every run (and by `merge`): per-test acceptance of the generation gate.
SUITE_OPTIONAL_KEYS = ("acceptance",)
#: Keys of `suites.<suite>.identity`: what makes two runs the same dataset (`RunConfig.identity`).
IDENTITY_KEYS = (
    "generator_version",
    "suite",
    "base_seed",
    "seconds",
    "fps",
    "width",
    "height",
    "engine",
    "samples",
    "passes",
    "options",
    "spaces",
    "code",
)
#: Keys of `identity` a set made before they existed lacks: `prompts`, the version of its questions' words
#: (generator/fingerprint.py `prompts_version`; absent reads as other words, which `render --upgrade` rewrites).
IDENTITY_OPTIONAL_KEYS = ("prompts",)
#: Keys of `identity.code`: fingerprints of the code that made the videos (generator/fingerprint.py).
CODE_KEYS = ("core", "tests")


def new_dataset(generator_version: str) -> dict:
    return {
        "written_by": WRITTEN_BY,
        "schema_version": SCHEMA_VERSION,
        "generator_version": generator_version,
        "schema": "docs/schema.md",
        "suites": {},
    }


def read_dataset(path: str) -> dict:
    """The dataset.json at `path`, checked: JSON, written by voebench, this schema version, every key."""
    try:
        with open(path, encoding="utf-8") as f:
            info = json.load(f)
    except (OSError, UnicodeDecodeError, ValueError):
        raise ContractError(f"{path}: unreadable (not JSON); not a folder voebench wrote") from None
    if not isinstance(info, dict):
        raise ContractError(f"{path}: not a JSON object; not a folder voebench wrote")
    if "written_by" not in info and "schema_version" not in info and "suites" in info and "generator_version" in info:
        raise ContractError(
            f"{path}: written by an earlier voebench release (no schema_version); this one "
            f"reads schema {SCHEMA_VERSION}: render into a new folder"
        )
    if info.get("written_by") != WRITTEN_BY:
        raise ContractError(
            f'{path}: not written by voebench (no `written_by: "{WRITTEN_BY}"`); '
            "voebench never reads or writes into a folder it did not make"
        )
    if info.get("schema_version") != SCHEMA_VERSION:
        raise ContractError(
            f"{path}: schema_version {info.get('schema_version')!r}; this voebench reads "
            f"{SCHEMA_VERSION}: use the release that wrote it, or render into a new folder"
        )
    missing = [k for k in KEYS if k not in info]
    if missing or not isinstance(info["suites"], dict):
        raise ContractError(f"{path}: lacks {', '.join(missing) or 'a suites object'} (docs/schema.md)")
    for name, s in info["suites"].items():
        lack = [k for k in SUITE_KEYS if k not in s] if isinstance(s, dict) else list(SUITE_KEYS)
        if not lack and isinstance(s["identity"], dict):
            lack = [f"identity.{k}" for k in IDENTITY_KEYS if k not in s["identity"]]
        if lack:
            raise ContractError(f"{path}: suites.{name} lacks {', '.join(lack)} (docs/schema.md)")
    return info


def write_dataset(path: str, info: dict) -> None:
    """Write `info` (stamped with the marker and schema version) atomically."""
    info = {**info, "written_by": WRITTEN_BY, "schema_version": SCHEMA_VERSION}
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w", encoding="utf-8") as f:
        json.dump(info, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)
