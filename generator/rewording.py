"""Rewording a finished set: its question texts rewritten in the suite's current prompts, nothing rendered.

`render --upgrade` on a set whose prompts version (`identity.prompts` in dataset.json) is not the running code's
calls `reword_set` before anything renders (`output.prepare_output`). Each prompt's text is composed again by the
suite's `question_text` from the prompt's other fields and the video's sampled values (`params.sampled`), exactly
as a fresh render composes it, and written everywhere the set keeps it:

- each complete HDF5's `manifest_entry` attribute: the file is copied under a temporary name, the attribute's value
  is changed in place in the copy (`attrs.modify`: the attribute keeps its place in the creation order) and the
  copy renamed over the file, so a kill leaves the old file or the new one, never half of one. The writer stores no
  timestamps and changing an attribute adds none, so rewording gives the same bytes whenever it runs; they are not
  the bytes of a fresh render in the new words (HDF5 stores the changed string in a new place in the file), but
  every dataset and attribute is equal to a fresh render's.
- every manifest of the folder (`manifest.jsonl` and shard manifests), rewritten atomically, sorted by id.

A video whose texts already are in the current words is not touched. dataset.json takes the new prompts version
only after every file is reworded, so a rewording cut short is finished by the next `render --upgrade`.
"""

from __future__ import annotations

import contextlib
import glob
import json
import os
import shutil
from typing import TYPE_CHECKING

from voebench.contract import hdf5 as h5c
from voebench.contract import manifest as mf
from voebench.generator.params import Params

if TYPE_CHECKING:
    from voebench.generator.suite import Suite


def reworded(suite: Suite, entry: dict) -> dict:
    """`entry` with every prompt's text in the current words (a new dict; keys keep their order)."""
    p = Params.wrap(entry["params"]["sampled"])
    prompts = [{**prompt, "text": suite.question_text(entry["test"], p, prompt)} for prompt in entry.get("prompts", [])]
    return {**entry, "prompts": prompts}


def reword_h5(suite: Suite, path: str) -> bool:
    """Rewrite the `manifest_entry` of one finished HDF5 in the current words; False when it already was."""
    import h5py

    entry = h5c.read_manifest_entry(path)
    new = reworded(suite, entry)
    if new == entry:
        return False
    tmp = f"{path}.tmp-{os.getpid()}"
    try:
        shutil.copyfile(path, tmp)
        with h5py.File(tmp, "r+") as f:
            f.attrs.modify("manifest_entry", json.dumps(new))  # as the writer writes it (generator/trial.py)
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(OSError):
            os.remove(tmp)
        raise
    return True


def reword_manifests(suite: Suite, out: str) -> int:
    """Rewrite the entries of `suite` in every manifest of `out` in the current words; the number changed."""
    changed = 0
    for path in mf.manifest_paths(out):
        entries = mf.read_manifest(path, truncated="ignore")
        new = [reworded(suite, e) if e["suite"] == suite.name else e for e in entries]
        n = sum(a != b for a, b in zip(entries, new))
        if n:
            mf.write_manifest(path, new)
            changed += n
    return changed


def reword_set(suite: Suite, out: str) -> int:
    """Reword every finished video of `suite` in `out` (its HDF5 and its manifest lines); returns how many HDF5
    files changed. An unfinished HDF5 is left alone: resuming makes it again, in the current words."""
    changed = 0
    for path in sorted(glob.glob(os.path.join(out, suite.name, "*", "*.h5"))):
        if h5c.is_complete(path):
            changed += reword_h5(suite, path)
    reword_manifests(suite, out)
    return changed
