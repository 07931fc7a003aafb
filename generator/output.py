"""The output folder: what a rendered set looks like on disk and how it is written safely.

- `prepare_output` creates the folder and records (or checks) which dataset it holds before anything renders.
  It never writes into a folder voebench did not make (a foreign or unreadable dataset.json, a corrupt
  manifest, or files but no dataset.json), nor resumes one made with other settings, by other code or asked in
  other words (unless `upgrade`, which remakes only the tests whose code changed and rewords the question texts
  of the others without rendering them: generator/rewording.py).
- `manifest.jsonl` gets one line per finished video (appended as videos finish) and is rewritten sorted at the
  end; shards write `manifest-shard-I-of-N.jsonl` and `merge` combines them.
- After a run (or a merge), `dataset.json` records how many draws each test's trials needed (`acceptance`).
- Every file is written under a temporary name and renamed when complete.
- The file formats themselves (keys, strict readers) are `voebench.contract`'s.
"""

from __future__ import annotations

import glob
import json
import os
from collections import Counter
from collections.abc import Iterable
from typing import TYPE_CHECKING

from voebench import __version__
from voebench.contract import dataset as ds
from voebench.contract import hdf5 as h5c
from voebench.contract import manifest as mf
from voebench.errors import UsageError
from voebench.generator.fingerprint import changed_tests
from voebench.generator.rewording import reword_set

if TYPE_CHECKING:
    from voebench.generator.config import RunConfig
    from voebench.generator.suite import Job, Suite


def is_done(cfg: RunConfig, job: Job) -> bool:
    """Cheap completeness check: both files exist, the HDF5 is marked complete, the mp4 has its index."""
    base = os.path.join(cfg.out, job.relpath)
    if not h5c.is_complete(base + ".h5"):
        return False
    return "rgb" not in cfg.passes or mp4_complete(base + ".mp4")


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
    return mf.NAME if n == 1 else f"manifest-shard-{shard}-of-{n}.jsonl"


def read_existing(out: str) -> tuple[dict | None, dict[str, list[dict]]]:
    """(dataset.json, {manifest path: entries}) of an existing output folder, read strictly; raises UsageError
    for a folder voebench did not write. (None, {}) for a missing or empty folder."""
    if not os.path.exists(out):
        return None, {}
    if not os.path.isdir(out):
        raise UsageError(f"--out {out}: exists and is not a directory")
    path = os.path.join(out, ds.NAME)
    if not os.path.exists(path):
        if os.listdir(out):
            raise UsageError(
                f"--out {out}: holds files but no {ds.NAME}, so voebench did not write it; "
                "render into an empty or new folder"
            )
        return None, {}
    info = ds.read_dataset(path)
    manifests = {p: mf.read_manifest(p, truncated="ignore") for p in mf.manifest_paths(out)}
    return info, manifests


def prepare_output(cfg: RunConfig, suite: Suite, upgrade: bool = False) -> None:
    """Create the output dir and record (or check) what dataset it holds, before anything renders. Every
    refusal happens before anything is written. With `upgrade`, the tests whose code changed since the folder
    was made lose their files and manifest lines first (nothing else is touched) and are then made again, and
    when the prompts changed (`identity.prompts`), every other video's question texts are rewritten in the new
    words; without it, either change is refused in one line that names --upgrade."""
    info, manifests = read_existing(cfg.out)
    ident = json.loads(json.dumps(cfg.identity(suite)))
    old = (info or {}).get("suites", {}).get(cfg.suite)
    stale: list[str] = []
    reword = False
    if old is not None:
        settings = sorted(k for k in ident if k not in ("code", "prompts") and ident[k] != old["identity"].get(k))
        if settings:
            raise UsageError(
                f"{cfg.out} holds a {cfg.suite} set made with other settings ({', '.join(settings)}); "
                "use another --out or the same settings"
            )
        core, stale = changed_tests(old["identity"].get("code"), ident["code"], old.get("tests", []))
        if stale and not upgrade:
            what = "the generator core" if core else "the scene code of " + ", ".join(stale)
            raise UsageError(
                f"{cfg.out} holds {cfg.suite} videos made by other code ({what} changed since; tests "
                f"{', '.join(stale)}): render with --upgrade to remake only those, or use another --out"
            )
        reword = old["identity"].get("prompts") != ident["prompts"]
        if reword and not upgrade:
            raise UsageError(
                f"{cfg.out} holds {cfg.suite} videos asked in other words (the prompts changed since): render "
                "with --upgrade to rewrite their question texts (no video is rendered again), or use another --out"
            )
    try:
        os.makedirs(cfg.out, exist_ok=True)
    except OSError as e:
        raise UsageError(f"--out {cfg.out}: cannot create ({e.strerror})") from None
    if not os.access(cfg.out, os.W_OK):
        raise UsageError(f"--out {cfg.out}: not writable")
    if stale:
        remove_tests(cfg.out, cfg.suite, stale, manifests)
    if reword:
        reword_set(suite, cfg.out)  # before dataset.json records the new words: a kill here is finished next time
    info = info or ds.new_dataset(__version__)
    rendered = sorted(set((old or {}).get("tests", [])) | set(cfg.tests))
    info["suites"][cfg.suite] = {
        **(old or {}),
        "identity": ident,
        "tests": rendered,
        "trials_per_test": max(cfg.trials, (old or {}).get("trials_per_test", 0)),
    }
    info["generator_version"] = __version__
    ds.write_dataset(os.path.join(cfg.out, ds.NAME), info)
    for stale_tmp in glob.glob(os.path.join(cfg.out, cfg.suite, "*", "*.tmp-*")):
        os.remove(stale_tmp)  # left by a killed run


def remove_tests(out: str, suite: str, tests: list[str], manifests: dict[str, list[dict]]) -> None:
    """Delete every video file of `suite`/`tests` and their manifest lines (for `render --upgrade`)."""
    for test in tests:
        for path in glob.glob(os.path.join(out, suite, test, "*")):
            if os.path.isfile(path) and (path.endswith((".h5", ".mp4")) or ".tmp-" in path):
                os.remove(path)
    for path, entries in manifests.items():
        kept = [e for e in entries if not (e["suite"] == suite and e["test"] in tests)]
        if len(kept) != len(entries):
            mf.write_manifest(path, mf.by_id(kept).values())


def write_json_atomic(path: str, obj) -> None:
    tmp = f"{path}.tmp-{os.getpid()}"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=2, sort_keys=True)
        f.write("\n")
    os.replace(tmp, path)


def read_manifest(path: str) -> dict[str, dict]:
    """Entries by id (strict: a corrupt line raises); a last line cut short by a kill is ignored (its video is
    re-read from its HDF5)."""
    return mf.by_id(mf.read_manifest(path, truncated="ignore")) if os.path.exists(path) else {}


def entry_from_h5(path: str) -> dict:
    return h5c.read_manifest_entry(path)


def write_manifest(path: str, entries) -> None:
    mf.write_manifest(path, entries)


def merge(out: str) -> int:
    """Combine shard manifests (and any finished video missing from them) into manifest.jsonl."""
    path = os.path.join(out, ds.NAME)
    if not os.path.exists(path):
        raise UsageError(f"{out}: no {ds.NAME}; not a folder voebench wrote")
    ds.read_dataset(path)
    entries = read_manifest(os.path.join(out, mf.NAME))
    for p in sorted(glob.glob(os.path.join(out, mf.SHARD_PATTERN))):
        entries.update(read_manifest(p))
    known = {e["states"] for e in entries.values()}
    for h5 in glob.glob(os.path.join(out, "*", "*", "*.h5")):
        rel = os.path.relpath(h5, out)
        if rel not in known and h5c.is_complete(h5):
            e = entry_from_h5(h5)
            entries[e["id"]] = e
    write_manifest(os.path.join(out, mf.NAME), entries.values())
    record_folder_acceptance(out, entries.values())
    return len(entries)


# ------------------------------------------------------------------------------------------------ acceptance


def acceptance(entries: Iterable[dict]) -> dict:
    """Per test: trials, draws (attempts) they took, the share of draws accepted, and why draws were rejected."""
    by_test: dict = {}
    seen = set()
    for e in entries:
        trial = e.get("pair_id") or e["id"]
        if trial in seen:
            continue
        seen.add(trial)
        row = by_test.setdefault(e["test"], {"trials": 0, "draws": 0, "max_attempts": 0, "rejected": Counter()})
        attempts = int(e.get("attempt", 0)) + 1
        row["trials"] += 1
        row["draws"] += attempts
        row["max_attempts"] = max(row["max_attempts"], attempts)
        row["rejected"].update(r["kind"] for r in e.get("rejected", []))
    for row in by_test.values():
        row["acceptance"] = round(row["trials"] / row["draws"], 4)
        row["rejected"] = dict(sorted(row["rejected"].items()))
    return dict(sorted(by_test.items()))


def record_acceptance(cfg: RunConfig, entries: Iterable[dict]) -> None:
    """Write the per-test acceptance of this run's suite into dataset.json (a shard leaves it to `merge`, which
    sees every shard's manifest: shards may run at once on other machines)."""
    if cfg.shard[1] == 1:
        record_folder_acceptance(cfg.out, entries)


def record_folder_acceptance(out: str, entries: Iterable[dict]) -> None:
    """Per-test acceptance of every suite in the folder into dataset.json (as a single run records it)."""
    path = os.path.join(out, ds.NAME)
    info = ds.read_dataset(path)
    entries = list(entries)
    for name, suite in info["suites"].items():
        suite["acceptance"] = acceptance(e for e in entries if e.get("suite") == name)
    ds.write_dataset(path, info)
