"""A Hugging Face `datasets` folder of a rendered set (`voebench export hf-dataset SET --out DIR`).

`datasets.load_dataset(DIR)` reads it as it is, offline, with nothing but the `datasets` package; the same folder
uploaded to a hub repository is a dataset repository (its README.md is the card). Layout:

    <out>/README.md                                  the dataset card (hf_card.py): YAML header with one config per
                                                     suite and per test, then how the set was made and what to cite
    <out>/data/<suite>/<test>/<split>.jsonl          one row per question (column list: COLUMNS)
    <out>/videos/<the manifest's video path>         a copy of every mp4
    <out>/clips/<the manifest's video path>          predict suite: the clip up to the cut (frames 0..cut_frame)
    <out>/states/<the manifest's states path>        a copy of every HDF5 (ground truth, docs/schema.md)
    <out>/dataset.json                               the set's own dataset.json (identity, code fingerprints)
    <out>/voebench_export.json                       what voebench wrote here (the mark `--out` is checked for)

Rules:
- **Videos as paths, not bytes.** A row names its mp4 relative to the folder (`videos/grasp-l2/t09_gravity/
  00003-plausible.mp4`) and the folder holds the file: a hub stores videos as files (LFS) and shows them, every
  harness opens a path, a question row does not repeat its video's bytes (Level 1 and NEWTON videos carry three to
  five questions), and no video decoder is needed to load the table. Join `row["video"]` with the folder (or the
  hub snapshot's folder). The HDF5 states are named the same way (`states`).
- **A row's video is what a model is shown.** A `prediction` question (the predict suite) asks what happens after
  the video stops, and `voebench predict` shows frames 0 to the entry's `prediction.cut_frame` only: the rest of the
  video is the answer. Its row names `clips/<video path>`, those frames re-encoded (H.264, same fps), with
  `n_frames` = cut_frame + 1; the whole video is still under `videos/` for reference. (Before this, the row named
  the whole video, so a harness that shows a row's video showed the outcome it asks for.)
- **One row per question** (a video without a question gives one row with empty question fields), with the id
  `voebench evaluate` gives that sample (`<video id>#<kind>[-<polarity>]`, `#<qid>` for choice questions), so an
  evaluation run can be joined to the rows.
- **JSON lines of one fixed schema** (`datasets`' own `json` builder, no pyarrow needed to write): every row has
  every column with the same type (strings are "" when absent, never null, since a column that is null in one file
  and text in another fails to load as one table); nested values (parameters, choices, violation, suite-specific
  keys) are JSON text, as their keys differ from test to test.
- **Splits** are the manifest's `split` (AVoE's train / validation / test), `test` for suites without one.
- **Written atomically**: into a hidden sibling folder, which then replaces `<out>`; bad input is refused before
  anything is written, and a folder voebench did not write is never touched (`check_out_folder` and the mark).
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from collections import Counter
from typing import Any

from voebench import __version__
from voebench.contract import WRITTEN_BY
from voebench.errors import UsageError
from voebench.evaluate import checks
from voebench.evaluate.export import hf_card
from voebench.evaluate.tasks import _sample_id, load_manifest, select_with_videos

#: the file that marks a folder this export wrote (an earlier export may be replaced, nothing else)
MARK = "voebench_export.json"
#: the names an export folder holds; one holding anything else is refused (a user's file would be deleted)
OWN_NAMES = ("README.md", "data", "videos", "clips", "states", "dataset.json", MARK)

#: (column, `datasets` dtype, meaning): the rows' schema, in this order, and the card's column table
COLUMNS: tuple[tuple[str, str, str], ...] = (
    ("id", "string", "the sample id `voebench evaluate` gives this question"),
    ("video_id", "string", "the manifest entry's id (`<suite>/<test>/<index>[-<condition>]`)"),
    ("suite", "string", "the suite (`grasp-l1`, `grasp-l2`, `avoe`, `newton`, ...)"),
    ("test", "string", "the test inside the suite"),
    ("index", "int64", "the trial index inside the test"),
    ("condition", "string", "Level 1: the true label; Level 2: plausible/implausible; AVoE: expected/surprising"),
    ("pair_id", "string", 'shared by the videos of one trial ("" where unpaired)'),
    ("split", "string", "the manifest's split (AVoE), else `test`"),
    ("seed", "int64", "the trial's seed"),
    ("video", "string", "the mp4 to show, relative to the dataset folder (`prediction`: the clip up to the cut)"),
    ("states", "string", "the HDF5 ground truth (depth, segmentation, tracks), relative to the dataset folder"),
    ("n_frames", "int64", "frames in the video (`prediction`: in the clip, cut_frame + 1)"),
    ("fps", "float64", "frames per second"),
    ("width", "int64", "pixels"),
    ("height", "int64", "pixels"),
    ("question", "string", "the exact prompt text"),
    ("answer", "string", "the correct answer (yes/no, an open question's keyword class, a choice label)"),
    ("kind", "string", "binary, open, plausibility, choice or prediction"),
    ("polarity", "string", 'binary/choice phrasing (positive, negative), plausibility: yes = positive; else ""'),
    ("choices", "string", "JSON: an open question's keyword classes, a choice question's labels (else \"\")"),
    ("question_meta", "string", 'JSON: the prompt\'s other keys (observation, NEWTON meta...), else ""'),
    ("description", "string", "a plain-text description of the video, from its ground truth"),
    ("violation", "string", 'JSON: what the implausible video violates ("" for plausible ones)'),
    ("parameters", "string", "JSON: the trial's drawn values (`sampled`) and effective space (`config`)"),
    ("extra", "string", "JSON: the entry's suite-specific keys (labels, test_number, principles, prediction...)"),
)
_PROMPT_COLUMNS = ("kind", "text", "answer", "polarity", "choices")
#: manifest keys the columns above carry (the rest go into `extra`)
_ENTRY_COLUMNS = {"id", "suite", "test", "index", "condition", "pair_id", "split", "seed", "video", "states"}
_ENTRY_COLUMNS |= {"n_frames", "fps", "width", "height", "prompts", "description", "violation", "params"}


def _json(value: Any) -> str:
    return "" if value in (None, {}, []) else json.dumps(value, ensure_ascii=False, sort_keys=True)


def _text(value: Any) -> str:
    return "" if value is None else str(value)


def rows_of(entry: dict) -> list[dict]:
    """The rows of one manifest entry: one per question, or one with empty question fields if it asks none."""
    base = {
        "id": entry["id"],
        "video_id": entry["id"],
        "suite": entry["suite"],
        "test": entry["test"],
        "index": int(entry["index"]),
        "condition": _text(entry.get("condition")),
        "pair_id": _text(entry.get("pair_id")),
        "split": entry.get("split") or "test",
        "seed": int(entry["seed"]),
        "video": f"videos/{entry['video']}",
        "states": f"states/{entry['states']}",
        "n_frames": int(entry["n_frames"]),
        "fps": float(entry["fps"]),
        "width": int(entry["width"]),
        "height": int(entry["height"]),
        "question": "",
        "answer": "",
        "kind": "",
        "polarity": "",
        "choices": "",
        "question_meta": "",
        "description": _text(entry.get("description")),
        "violation": _json(entry.get("violation")),
        "parameters": _json(entry.get("params")),
        "extra": _json({k: v for k, v in entry.items() if k not in _ENTRY_COLUMNS}),
    }
    out = []
    for p in entry.get("prompts") or []:
        shown = {}
        if p["kind"] == "prediction":  # the clip up to the cut (module docstring)
            shown = {"video": f"clips/{entry['video']}", "n_frames": cut_frame(entry) + 1}
        polarity = p.get("polarity")
        if p["kind"] == "plausibility":
            polarity = "positive" if str(p["answer"]).lower() == "yes" else "negative"
        out.append(
            {
                **base,
                **shown,
                "id": _sample_id(entry, p),
                "question": p["text"],
                "answer": _text(p["answer"]),
                "kind": p["kind"],
                "polarity": _text(polarity),
                "choices": _json(p.get("choices")),
                "question_meta": _json({k: v for k, v in p.items() if k not in _PROMPT_COLUMNS}),
            }
        )
    return out or [base]


def cut_frame(entry: dict) -> int:
    """The last frame a `prediction` question may show: the entry's `prediction.cut_frame`, inside the video."""
    cut = (entry.get("prediction") or {}).get("cut_frame")
    if isinstance(cut, bool) or not isinstance(cut, int) or not 0 <= cut < int(entry["n_frames"]):
        raise UsageError(
            f"{entry['id']}: a prediction question needs prediction.cut_frame inside the video, got {cut!r}"
        )
    return cut


def _write_clip(src: str, dst: str, entry: dict) -> None:
    """Frames 0..cut_frame of `src` as an mp4 at the video's fps (what `voebench predict` may show)."""
    from voebench.evaluate import frames as frames_mod  # numpy, and a video decoder

    clip = frames_mod.read_frames(src, list(range(cut_frame(entry) + 1)))
    os.makedirs(os.path.dirname(dst), exist_ok=True)
    with open(dst, "wb") as fh:
        fh.write(frames_mod.encode_mp4(clip, float(entry["fps"])))


def config_names(entries: list[dict]) -> dict[tuple[str, str], str]:
    """(suite, test) -> the test's config name `<suite>_<test>`; the suite's own config is `<suite>` and the whole
    export's `all`. UsageError, before anything is written, where two would share a name or a name is not one the
    hub takes (letters, digits, `-`, `_`, `.`)."""
    suites = sorted({e["suite"] for e in entries})
    tests = {(e["suite"], e["test"]): f"{e['suite']}_{e['test']}" for e in entries}
    names = ["all", *suites, *tests.values()]
    bad = [n for n in names if not re.fullmatch(r"[A-Za-z0-9][A-Za-z0-9._-]*", n)]
    if bad:
        raise UsageError(f"config name {bad[0]!r} (from a suite or test name) is not one a dataset hub takes")
    twice = sorted(n for n, c in Counter(names).items() if c > 1)
    if twice:
        raise UsageError(f"config names would collide ({', '.join(twice[:3])}): export the suites apart")
    return dict(sorted(tests.items()))


def check_out(out_dir: str) -> None:
    """UsageError unless `out_dir` may be (re)written: absent, empty, or an earlier hf-dataset export holding only
    what the export writes (replacing it must not delete a file the user put there)."""
    checks.check_out_folder(out_dir, (MARK,))
    if os.path.isdir(out_dir) and os.listdir(out_dir):
        foreign = sorted(set(os.listdir(out_dir)) - set(OWN_NAMES))
        if foreign:
            raise UsageError(
                f"--out {out_dir}: an earlier export that now also holds {', '.join(foreign[:3])}, which an export "
                "would delete; move it away or choose a new folder"
            )


def export_hf_dataset(
    dataset_dir: str,
    out_dir: str,
    suites: list[str] | None = None,
    tests: list[str] | None = None,
    limit: int | None = None,
    complete_pairs_only: bool = False,
) -> dict:
    """Write the dataset folder (module docstring); returns what was written: rows and videos per config."""
    check_out(out_dir)
    manifest = load_manifest(dataset_dir)
    entries = select_with_videos(
        manifest, dataset_dir, "a video dataset needs the videos", suites, tests, limit, complete_pairs_only
    )
    files = [e[k] for e in entries for k in ("video", "states")]
    missing = [f for f in files if not os.path.isfile(os.path.join(manifest.root, f))]
    if missing:
        raise UsageError(f"{dataset_dir}: {len(missing)} files of the manifest are missing, e.g. {missing[0]}")
    names = config_names(entries)

    rows: dict[tuple[str, str, str], list[dict]] = {}  # (suite, test, split) -> rows
    for e in entries:
        for r in rows_of(e):
            rows.setdefault((r["suite"], r["test"], r["split"]), []).append(r)
    summary = {
        "written_by": WRITTEN_BY,
        "format": "hf-dataset",
        "voebench_version": __version__,
        "source": os.path.basename(os.path.abspath(dataset_dir)),  # not the full path: the folder may be published
        "selection": {"suites": suites, "tests": tests, "limit": limit, "complete_pairs_only": complete_pairs_only},
        "videos": len(entries),
        "rows": sum(len(v) for v in rows.values()),
        "configs": {name: sum(len(v) for (s, t, _), v in rows.items() if (s, t) == key) for key, name in names.items()},
    }
    out_dir = os.path.abspath(out_dir)
    parent = os.path.dirname(out_dir)
    os.makedirs(parent, exist_ok=True)
    try:
        tmp = tempfile.mkdtemp(prefix=f".{os.path.basename(out_dir)}.voebench-", dir=parent)
    except OSError as err:
        raise UsageError(
            f"--out {out_dir}: cannot write in {parent} ({err.strerror}), where the export is made"
        ) from None
    try:
        for (suite, test, split), part in sorted(rows.items()):
            path = os.path.join(tmp, "data", suite, test, f"{split}.jsonl")
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as fh:
                fh.writelines(json.dumps(r, ensure_ascii=False) + "\n" for r in part)
        for e in entries:
            for key, folder in (("video", "videos"), ("states", "states")):
                dst = os.path.join(tmp, folder, e[key])
                os.makedirs(os.path.dirname(dst), exist_ok=True)
                shutil.copy2(os.path.join(manifest.root, e[key]), dst)
            if any(p["kind"] == "prediction" for p in e.get("prompts") or []):
                _write_clip(os.path.join(manifest.root, e["video"]), os.path.join(tmp, "clips", e["video"]), e)
        shutil.copy2(os.path.join(manifest.root, "dataset.json"), os.path.join(tmp, "dataset.json"))
        layout = {key: sorted({sp for (s, t, sp) in rows if (s, t) == key}, key=hf_card.split_key) for key in names}
        with open(os.path.join(tmp, "README.md"), "w", encoding="utf-8") as fh:
            fh.write(hf_card.card(names, layout, rows, manifest.dataset, COLUMNS, summary))
        with open(os.path.join(tmp, MARK), "w", encoding="utf-8") as fh:
            json.dump(summary, fh, indent=1)
            fh.write("\n")
        os.chmod(tmp, 0o755)  # mkdtemp makes it private; the export is a folder like any other
        _replace(tmp, out_dir)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return summary


def _replace(tmp: str, out_dir: str) -> None:
    """Put the finished folder `tmp` where `out_dir` is: a rename, after moving an earlier export (checked by
    `check_out`) aside; the earlier one is deleted only once the new one is in place."""
    old = None
    if os.path.isdir(out_dir):
        old = tempfile.mkdtemp(prefix=f".{os.path.basename(out_dir)}.voebench-old-", dir=os.path.dirname(out_dir))
        os.rename(out_dir, os.path.join(old, "x"))
    try:
        os.rename(tmp, out_dir)
    except OSError:
        if old is not None:
            os.rename(os.path.join(old, "x"), out_dir)
            os.rmdir(old)
        raise
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
