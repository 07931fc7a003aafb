"""Hooks of the voebench lmms-eval task. This file is copied verbatim as `utils.py` into an exported task folder,
so it imports nothing from voebench (lmms-eval environments need not have it) and only the standard library.

Scoring is GRASP's (the same rules as voebench.evaluate.parsing): yes/no questions are valid only if the first
whitespace token, lower-cased with ASCII punctuation removed, is "yes" or "no"; open questions by keyword classes
(`doc["choices"]`), a response naming no class or several classes is invalid. Invalid counts as wrong. Choice
questions (the `newton` suite) by voebench's options reader itself: the export copies
evaluate/newton/choice.py (standard library only) verbatim next to this file as `newton_choice.py`, so
there is no second copy of its rules to drift. tests/evaluate/test_export_parser.py checks that both agree.

Yes/no questions also get the careful reader's reading (`careful_acc_<kind>` / `careful_unparsed_<kind>`, kind binary
or plausibility), from evaluate/verdict.py copied verbatim next to this file as `voebench_verdict.py`: the section
`voebench report` prints beside GRASP's rule (docs/evaluate.md).

Metrics: `grasp_acc` / `grasp_invalid` over every question of the task, and per question kind
`grasp_acc_<kind>` / `grasp_invalid_<kind>` (kind: binary, open, plausibility, choice), returned only for a
question of that kind, so lmms-eval's mean of each is over that kind alone: what `voebench report` prints per
(suite, test, kind). A Level 1 test mixes yes/no and open questions, whose chance levels differ (a constant "yes"
answers no open question), so read its `grasp_acc_binary` and `grasp_acc_open`, not the pooled `grasp_acc`.
"""

import importlib.util
import json
import os
import string

_HERE = os.path.dirname(os.path.abspath(__file__))
_PUNCT = str.maketrans("", "", string.punctuation)
CHOICE_MODULE = "newton_choice.py"  # written next to this file by the export
VERDICT_MODULE = "voebench_verdict.py"  # likewise


def _video_path(doc):
    # lmms-eval does not rewrite paths inside the data file: resolve them against this folder
    return os.path.normpath(os.path.join(_HERE, doc["video"]))


def doc_to_visual(doc):
    return [_video_path(doc)]


def doc_to_text(doc, lmms_eval_specific_kwargs=None):
    kw = lmms_eval_specific_kwargs or {}
    return f"{kw.get('pre_prompt', '')}{doc['question']}{kw.get('post_prompt', '')}"


def doc_to_messages(doc, lmms_eval_specific_kwargs=None):
    """The conversation of chat models: the system prompt of the task's `lmms_eval_specific_kwargs` (written by the
    export from the settings `voebench evaluate` uses; none: no system message, as evaluate sends none), then the
    video and the question."""
    system = (lmms_eval_specific_kwargs or {}).get("system_prompt")
    user = {
        "role": "user",
        "content": [
            {"type": "video", "url": _video_path(doc)},
            {"type": "text", "text": doc_to_text(doc, lmms_eval_specific_kwargs)},
        ],
    }
    if system:
        return [{"role": "system", "content": [{"type": "text", "text": system}]}, user]
    return [user]


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


def _load_copy(filename, name):
    """A verbatim copy the export writes next to this file, loaded by path (lmms-eval need not have voebench)."""
    path = os.path.join(_HERE, filename)
    spec = importlib.util.spec_from_file_location(name, path)
    if spec is None or spec.loader is None:
        raise ImportError(f"cannot load {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _load_choice_reader():
    """The options reader: the verbatim copy of evaluate/newton/choice.py that the export writes next to
    this file (`newton_choice.py`); in voebench's own source tree (where this file lives unexported), the module
    itself."""
    if not os.path.exists(os.path.join(_HERE, CHOICE_MODULE)):
        from voebench.evaluate.newton import choice  # voebench's tree, not an exported task

        return choice
    return _load_copy(CHOICE_MODULE, "voebench_task_newton_choice")


def _load_verdict_reader():
    """The careful yes/no reader: the copy of evaluate/verdict.py (`voebench_verdict.py`), or in voebench's own tree
    the module itself."""
    if not os.path.exists(os.path.join(_HERE, VERDICT_MODULE)):
        from voebench.evaluate import verdict  # voebench's tree, not an exported task

        return verdict
    return _load_copy(VERDICT_MODULE, "voebench_task_verdict")


_choice = _load_choice_reader()
_verdict = _load_verdict_reader()


def _parse_choice(response, choices):
    """The option label the response picks, or None (voebench.evaluate.newton.choice.read_choice)."""
    return _choice.read_choice(response, list(choices["labels"]), bool(choices.get("letters")))


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
    invalid = float(parsed is None)
    kind = doc["kind"]
    out = {
        "grasp_acc": correct,
        "grasp_invalid": invalid,
        f"grasp_acc_{kind}": correct,
        f"grasp_invalid_{kind}": invalid,
    }
    if kind in ("binary", "plausibility"):  # the careful reader, beside GRASP's first word
        verdict = _verdict.read_verdict(response, kind == "plausibility", doc.get("question") or None)
        out[f"careful_acc_{kind}"] = float(verdict is not None and verdict == doc["answer"])
        out[f"careful_unparsed_{kind}"] = float(verdict is None)
    return out
