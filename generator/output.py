"""The output folder: what a rendered set looks like on disk and how it is written safely.

- `prepare_output` creates the folder and records (or checks) which dataset it holds before anything renders.
- `manifest.jsonl` gets one line per finished video (appended as videos finish) and is rewritten sorted at the
  end; shards write `manifest-shard-I-of-N.jsonl` and `merge` combines them.
- Every file is written under a temporary name and renamed when complete.
"""

from __future__ import annotations

import glob
import json
import os
from typing import TYPE_CHECKING

from voebench import __version__
from voebench.errors import UsageError


if TYPE_CHECKING:
    from voebench.generator.runner import RunConfig
    from voebench.generator.suite import Job, Suite


def is_done(cfg: RunConfig, job: Job) -> bool:
    """Cheap completeness check: both files exist, the HDF5 is marked complete, the mp4 has its index."""
    base = os.path.join(cfg.out, job.relpath)
    if not _h5_complete(base + ".h5"):
        return False
    return "rgb" not in cfg.passes or mp4_complete(base + ".mp4")


def _h5_complete(path: str) -> bool:
    import h5py

    try:
        with h5py.File(path, "r") as f:
            return bool(f.attrs.get("complete", False))
    except (OSError, KeyError):
        return False


def mp4_complete(path: str) -> bool:
    """An mp4 written by ffmpeg ends with its 'moov' index; a truncated file has none."""
    try:
        size = os.path.getsize(path)
        with open(path, "rb") as f:
            f.seek(max(0, size - 262144))
            return size > 0 and b"moov" in f.read()
    except OSError:
        return False


def manifest_name(cfg: RunConfig) -> str:
    shard, n = cfg.shard
    return "manifest.jsonl" if n == 1 else f"manifest-shard-{shard}-of-{n}.jsonl"


def prepare_output(cfg: RunConfig, suite: Suite) -> None:
    """Create the output dir and record (or check) what dataset it holds, before anything renders."""
    try:
        os.makedirs(cfg.out, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--out {cfg.out}: cannot create ({e.strerror})") from None
    if not os.access(cfg.out, os.W_OK):
        raise UsageError(f"--out {cfg.out}: not writable")
    path = os.path.join(cfg.out, "dataset.json")
    info = {}
    if os.path.exists(path):
        try:
            with open(path) as f:
                info = json.load(f)
        except (OSError, ValueError):
            raise UsageError(f"{path}: unreadable; is {cfg.out} a voebench output?") from None
    ident = json.loads(json.dumps(cfg.identity(suite)))
    old = info.get("suites", {}).get(cfg.suite)
    if old is not None and old["identity"] != ident:
        diff = sorted(k for k in ident if ident[k] != old["identity"].get(k))
        raise UsageError(f"{cfg.out} holds a {cfg.suite} set made with other settings ({', '.join(diff)}); "
                         "use another --out or the same settings")
    info.setdefault("suites", {})[cfg.suite] = {"identity": ident, "tests": list(cfg.tests),
                                                "trials_per_test": max(cfg.trials, (old or {}).get("trials_per_test", 0))}
    info["generator_version"] = __version__
    info["schema"] = "docs/schema.md"
    write_json_atomic(path, info)
    for stale in glob.glob(os.path.join(cfg.out, cfg.suite, "*", "*.tmp-*")):
        os.remove(stale)  # left by a killed run


def write_json_atomic(path: str, obj) -> None:
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def read_manifest(path: str) -> dict[str, dict]:
    """Entries by id; a line cut short by a kill is ignored (its video is re-read from its HDF5)."""
    out = {}
    if os.path.exists(path):
        with open(path) as f:
            for line in f:
                try:
                    e = json.loads(line)
                    out[e["id"]] = e
                except (ValueError, KeyError):
                    continue
    return out


def entry_from_h5(path: str) -> dict:
    import h5py

    with h5py.File(path, "r") as f:
        return json.loads(f.attrs["manifest_entry"])


def write_manifest(path: str, entries) -> None:
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        for e in sorted(entries, key=lambda e: e["id"]):
            f.write(json.dumps(e) + "\n")
    os.replace(tmp, path)


def merge(out: str) -> int:
    """Combine shard manifests (and any finished video missing from them) into manifest.jsonl."""
    entries = read_manifest(os.path.join(out, "manifest.jsonl"))
    for path in sorted(glob.glob(os.path.join(out, "manifest-shard-*.jsonl"))):
        entries.update(read_manifest(path))
    known = {e["states"] for e in entries.values()}
    for h5 in glob.glob(os.path.join(out, "*", "*", "*.h5")):
        rel = os.path.relpath(h5, out)
        if rel not in known and _h5_complete(h5):
            e = entry_from_h5(h5)
            entries[e["id"]] = e
    write_manifest(os.path.join(out, "manifest.jsonl"), entries.values())
    _record_acceptance(out, entries.values())
    return len(entries)


def _record_acceptance(out: str, entries) -> None:
    """Per-test acceptance of every suite in the folder into dataset.json (as a single run records it)."""
    from voebench.generator.feasibility import acceptance

    path = os.path.join(out, "dataset.json")
    with open(path) as f:
        info = json.load(f)
    entries = list(entries)
    for name, suite in info.get("suites", {}).items():
        suite["acceptance"] = acceptance(e for e in entries if e.get("suite") == name)
    write_json_atomic(path, info)
