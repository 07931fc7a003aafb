"""The predict questions as an lmms-eval task folder (`voebench predict-export`), scored by the exact scorer.

    <out>/<name>.yaml          one task over all questions (image and video forms, collision and event questions)
    <out>/<name>_<form>.yaml   one task per query form
    <out>/utils.py             hooks (evaluate/predict/lmms_utils.py); <out>/predict_exact/: the exact scorer
    <out>/data*.jsonl          {id, form, kind, question, visuals, answer, labels, true_pairs, true_unhit, outcome}
    <out>/clips/...            per question: the PNG frames (image form) or the mp4 clip up to the cut (video form)

lmms-eval hands a model whatever `doc_to_visual` returns, so the cut is made here: the files hold only the frames
before the cut, never the outcome.
"""

from __future__ import annotations

import json
import os
import re
import shutil

import numpy as np

from voebench.errors import UsageError
from voebench.evaluate import frames as frames_mod
from voebench.evaluate.export import lmms_eval as export_lmms_eval

HERE = os.path.dirname(os.path.abspath(__file__))
METRICS = ("predict_f1", "predict_outcome", "predict_strict")


def task_yaml(task: str, data_file: str, max_new_tokens: int = 256) -> str:
    """The task's YAML: the GRASP export's, with the exact scorer's metrics and room for a sentence."""
    return export_lmms_eval.task_yaml(task, data_file, max_new_tokens, metrics=[(m, True) for m in METRICS])


def _slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", s.lower()).strip("_")


def export(samples: list, dataset_dir: str, out_dir: str, name: str = "voebench_predict") -> int:
    """Write the task folder for `samples` (queries.PredictSample / events.EventSample); returns the doc count."""
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise UsageError(f"--name {name!r}: use letters, digits and underscores (it becomes a task name)")
    out_dir = os.path.abspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    docs = []
    for s in samples:
        frames = frames_mod.read_frames(s.video_path, s.frames)
        stem = os.path.join("clips", _slug(s.sample_id))
        os.makedirs(os.path.join(out_dir, os.path.dirname(stem)), exist_ok=True)
        if s.form == "image":
            visuals = []
            for k, (idx, f) in enumerate(zip(s.frames, frames)):
                rel = f"{stem}_{k}_f{idx:04d}.png"
                with open(os.path.join(out_dir, rel), "wb") as fh:
                    fh.write(frames_mod.encode_png(np.asarray(f)))
                visuals.append(rel)
        else:
            rel = f"{stem}.mp4"
            fps = len(s.frames) * s.fps / (s.cut_frame + 1)  # the clip plays in its real time
            with open(os.path.join(out_dir, rel), "wb") as fh:
                fh.write(frames_mod.encode_mp4(np.asarray(frames), fps))
            visuals = [rel]
        docs.append(
            {
                "id": s.sample_id,
                "video_id": s.video_id,
                "test": s.test,
                "form": s.form,
                "kind": s.kind,
                "question": s.prompt,
                "visuals": visuals,
                "frames": list(s.frames),
                "cut_frame": s.cut_frame,
                "answer": s.answer,
                "labels": list(getattr(s, "labels", [])),
                "true_pairs": list(getattr(s, "true_pairs", [])),
                "true_unhit": list(getattr(s, "true_unhit", [])),
                "outcome": s.outcome,
            }
        )

    def write(data_file: str, task: str, rows: list) -> None:
        with open(os.path.join(out_dir, data_file), "w", encoding="utf-8") as fh:
            for d in rows:
                fh.write(json.dumps(d, ensure_ascii=False) + "\n")
        with open(os.path.join(out_dir, f"{task}.yaml"), "w", encoding="utf-8") as fh:
            fh.write(task_yaml(task, data_file))

    write("data.jsonl", name, docs)
    for form in sorted({d["form"] for d in docs}):
        write(f"data_{form}.jsonl", f"{name}_{form}", [d for d in docs if d["form"] == form])
    shutil.copyfile(os.path.join(HERE, "lmms_utils.py"), os.path.join(out_dir, "utils.py"))
    stale = os.path.join(out_dir, "predict_exact.py")  # an export by an older voebench: a module, not the package
    if os.path.isfile(stale):
        os.remove(stale)
    package = os.path.join(out_dir, "predict_exact")
    shutil.rmtree(package, ignore_errors=True)
    # the exact scorer: the stdlib-only package evaluate/predict/reading (relative imports), as `predict_exact`
    shutil.copytree(os.path.join(HERE, "reading"), package, ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    return len(docs)
