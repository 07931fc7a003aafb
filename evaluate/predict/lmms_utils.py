"""Hooks of the voebench predict lmms-eval task. Copied verbatim as `utils.py` into an exported task folder, next to
`predict_exact/` (a copy of voebench's exact scorer package); both use the standard library only, so an lmms-eval
environment needs no voebench. Image-query docs show their frames as PNG images, video-query docs the clip cut at
the recorded frame (both written by the export: the full video, which shows the outcome, is never referenced).
`process_results` is the exact scorer: pairs F1 per answer, the outcome (collision or none) and the strict
all-correct rate; event docs (GRASP Level 2 / AVoE) score the option letter in all three."""

import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)

import predict_exact  # type: ignore[import-not-found]  # noqa: E402


def _paths(doc):
    # lmms-eval does not rewrite paths inside the data file: resolve them against this folder
    return [os.path.normpath(os.path.join(_HERE, p)) for p in doc["visuals"]]


def doc_to_visual(doc):
    if doc["form"] == "image":
        from PIL import Image  # only image-query docs need Pillow

        return [Image.open(p).convert("RGB") for p in _paths(doc)]
    return _paths(doc)


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    kw = lmms_eval_specific_kwargs or {}
    return f"{kw.get('pre_prompt', '')}{doc['question']}{kw.get('post_prompt', '')}"


def doc_to_messages(doc, lmms_eval_specific_kwargs=None):
    kind = "image" if doc["form"] == "image" else "video"
    content = [{"type": kind, "url": p} for p in _paths(doc)]
    content.append({"type": "text", "text": doc_to_text(doc, lmms_eval_specific_kwargs)})
    return [{"role": "user", "content": content}]


def doc_to_target(doc):
    return doc["answer"]


def process_results(doc, results):
    response = results[0] if results else ""
    if doc["kind"] == "event":
        _, s = predict_exact.score_choice(response, doc["outcome"])
    else:
        _, s = predict_exact.score(response, doc["labels"], doc["true_pairs"], doc["true_unhit"])
    return {"predict_f1": s.f1, "predict_outcome": float(s.outcome_correct), "predict_strict": float(s.strict)}
