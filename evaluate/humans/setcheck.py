"""Which rendered set a study was made from, checked before every `serve`.

A study records, when it is made, the set's fingerprint (sha256 of the identities in dataset.json: suite, base
seed, resolution, engine, code fingerprints...) and the sha256 and size of every video file it will show. `serve`
hashes those files again (all of them, every time: hashlib reads ~1 GB/s, so a study's videos take well under a
second; docs/humans.md has the measured figures) and refuses a set where one differs: a file changed, deleted or
re-rendered (another seed gives other bytes at the same paths), or a dataset of another identity.
"""

from __future__ import annotations

import hashlib
import json
import os

from voebench.errors import UsageError

CHUNK = 1 << 20


def set_fingerprint(dataset: dict) -> str:
    """sha256 of the suites' identities (what makes two renders the same dataset), canonical JSON."""
    ident = {name: s.get("identity") for name, s in sorted((dataset.get("suites") or {}).items())}
    return hashlib.sha256(json.dumps(ident, sort_keys=True).encode()).hexdigest()


def file_sha256(path: str) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(CHUNK):
            h.update(chunk)
    return h.hexdigest()


def hash_files(root: str, rels: list[str]) -> dict[str, dict]:
    """rel -> {"sha256", "size"} of each file under `root`; refuses a missing one (a study cannot show it)."""
    out = {}
    real_root = os.path.realpath(root)
    for rel in sorted(set(rels)):
        path = os.path.join(root, rel)
        if os.path.commonpath([os.path.realpath(path), real_root]) != real_root:
            raise UsageError(f"{root}: the manifest's video {rel} leaves the set; a study shows only the set's files")
        if not os.path.isfile(path):
            raise UsageError(f"{root}: {rel} is missing; a study shows every video it names")
        out[rel] = {"sha256": file_sha256(path), "size": os.path.getsize(path)}
    return out


def shown_videos(plans: list[list[dict]]) -> list[str]:
    """The set's videos the plans show (catch videos with a dot live in the study folder: catch.py)."""
    return sorted({t["video"] for trials in plans for t in trials if t.get("video") and t.get("video_root") != "study"})


def record(root: str, dataset: dict, plans: list[list[dict]]) -> dict:
    """What a new study stores of its set: {"fingerprint", "files": {rel: {sha256, size}}}."""
    return {"fingerprint": set_fingerprint(dataset), "files": hash_files(root, shown_videos(plans))}


def differences(root: str, dataset: dict, recorded: dict) -> list[str]:
    """How the set at `root` differs from what the study recorded (empty: the same set)."""
    out = []
    if set_fingerprint(dataset) != recorded["fingerprint"]:
        out.append("dataset.json names another render (suite, seed, settings or code differ)")
    for rel, want in sorted(recorded["files"].items()):
        path = os.path.join(root, rel)
        if not os.path.isfile(path):
            out.append(f"{rel} is missing")
        elif os.path.getsize(path) != want["size"] or file_sha256(path) != want["sha256"]:
            out.append(f"{rel} has changed")
    return out
