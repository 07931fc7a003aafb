"""Hooks of the voebench lmms-eval task. This file is copied verbatim as `utils.py` into an exported task folder,
so it imports nothing from voebench (lmms-eval environments need not have it) and only the standard library.

Scoring is GRASP's (the same rules as voebench.evaluate.parsing): yes/no questions are valid only if the first
whitespace token, lower-cased with ASCII punctuation removed, is "yes" or "no"; open questions by keyword classes
(`doc["choices"]`), a response naming no class or several classes is invalid. Invalid counts as wrong. Choice
questions (the `newton` suite) by the options parser of voebench.evaluate.newton.answers: a lettered option's
letter as the first word, else exactly one option's label as a whole phrase (a label only inside a longer
label's occurrence does not count). tests/evaluate/test_export_parser.py checks that both agree.
"""

import json
import os
import re
import string

_HERE = os.path.dirname(os.path.abspath(__file__))
_PUNCT = str.maketrans("", "", string.punctuation)


def _video_path(doc):
    # lmms-eval does not rewrite paths inside the data file: resolve them against this folder
    return os.path.normpath(os.path.join(_HERE, doc["video"]))


def doc_to_visual(doc):
    return [_video_path(doc)]


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    kw = lmms_eval_specific_kwargs or {}
    return f"{kw.get('pre_prompt', '')}{doc['question']}{kw.get('post_prompt', '')}"


def doc_to_messages(doc, lmms_eval_specific_kwargs=None):
    return [
        {
            "role": "user",
            "content": [
                {"type": "video", "url": _video_path(doc)},
                {"type": "text", "text": doc_to_text(doc, lmms_eval_specific_kwargs)},
            ],
        }
    ]


def doc_to_target(doc):
    return doc["answer"]


def _parse_binary(response):
    words = str(response or "").split()
    tok = words[0].lower().translate(_PUNCT) if words else ""
    return tok if tok in ("yes", "no") else None


def _parse_open(response, truth, choices, direction):
    text = str(response or "").lower()
    words = {w.translate(_PUNCT) for w in text.split()}
    has_true = any(k in words for k in choices[truth])
    wrong = None
    for label, variants in choices.items():
        if label == truth:
            continue
        if (
            direction
            and label == "right"
            and truth == "left"
            and ("right to left" in text or "right to the left" in text)
        ):
            continue
        if (
            direction
            and label == "left"
            and truth == "right"
            and ("left to right" in text or "left to the right" in text)
        ):
            continue
        if any(k in words for k in variants):
            wrong = label
            break
    if has_true and wrong is None:
        return truth
    if wrong is not None and not has_true:
        return wrong
    return None


def _norm(text):
    return " ".join(str(text).replace("_", " ").lower().split())


def _spans(text, label):
    pat = r"(?<![a-z0-9])" + re.escape(_norm(label)) + r"(?![a-z0-9])"
    return [m.span() for m in re.finditer(pat, text)]


def _parse_choice(response, choices):
    """The option label the response names, or None (a copy of voebench.evaluate.newton.answers.pick)."""
    labels = list(choices["labels"])
    text = _norm(response or "")
    if not text:
        return None
    spans = {lab: _spans(text, lab) for lab in labels}
    named = []
    for lab, sp in spans.items():
        longer = [s for other, ss in spans.items() if other != lab and len(_norm(other)) > len(_norm(lab)) for s in ss]
        if any(not any(a <= s[0] and s[1] <= b for a, b in longer) for s in sp):
            named.append(lab)
    by_label = named[0] if len(named) == 1 else None
    if choices.get("letters"):
        raw = text.split()[0]
        first = raw.translate(_PUNCT)
        offered = string.ascii_lowercase[: len(labels)]
        article = raw == "a" and len(text.split()) > 1 and by_label is not None  # "A glass breaks, so Yes"
        if len(first) == 1 and first in offered and not article:
            return labels[offered.index(first)]
    return by_label


def process_results(doc, results):
    response = results[0] if results else ""
    choices = doc.get("choices")
    if isinstance(choices, str) and choices:
        choices = json.loads(choices)
    if doc["kind"] == "open":
        parsed = _parse_open(response, doc["answer"], choices, bool(doc.get("direction")))
    elif doc["kind"] == "choice":
        parsed = _parse_choice(response, choices)
    else:
        parsed = _parse_binary(response)
    correct = float(parsed is not None and parsed == doc["answer"])
    return {"grasp_acc": correct, "grasp_invalid": float(parsed is None)}
