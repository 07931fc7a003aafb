"""The seed's LLM judge (its CLEVRER evaluator prompt, word for word with the three fields filled in) and the
agreement between the judge and the exact scorer.

The judge scores Specificity and Logical Consistency from 0 to 5 and Accuracy 0/1 ("is there an answer in the
prediction semantically consistent with the true label"). Its replies are read by `judge_reply.parse_scores`
(re-exported here; the reading rules are that module's docstring): a criterion the reply gives no single valid
score for is None, and a reply with any None is invalid (`reply_valid`), counted as such, never guessed.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from voebench.evaluate.predict.judge_reply import CRITERIA, parse_scores, reply_valid

__all__ = [
    "CRITERIA",
    "JUDGE_PROMPT",
    "JudgeItem",
    "cohen_kappa",
    "judge_prompt",
    "parse_scores",
    "reply_valid",
    "spearman",
]

#: the seed's CLEVRER evaluator prompt; {sentence_text}, {ground_truth_text}, {object_descriptions} as in the seed
JUDGE_PROMPT = (
    "As an expert evaluator, your task is to analyze the prediction results of a multimodal model. This model "
    "predicts whether certain targets in the keyframes of a 5-second video will collide or avoid collision in the "
    "next two seconds. You will receive the model's prediction for each individual sample and the corresponding true "
    "label.\n\n"
    "These are the evaluation dimensions:\n\n"
    "1. Specificity Evaluate the level of detail regarding the collision information in prediction_i. The "
    "prediction should provide a clear and unambiguous description, specifically concerning the details of the "
    "collision, such as when, where, or what objects are involved.\n\n"
    "Score from 0 (no specific or irrelevant collision information provided) to 5 (comprehensive and specific "
    "collision information provided, including involved objects, time, and location). 2. Logical Consistency "
    "Evaluate whether the prediction is logically consistent and based on the object attributes (such as shape, "
    "coordinates, movement speed) presented in the fifth picture.\n\n"
    "Score from 0 (inconsistent or irrelevant to the attributes in the fifth picture) to 5 (completely consistent "
    "and based on the attributes in the fifth picture).\n\n"
    "3. Accuracy Note that the prediction results can be diverse, indicating that the model has made predictions "
    "about various possible scenarios for each individual sample. However, the true label for each sample is "
    "unique. Evaluate whether there is an answer in the prediction that is semantically consistent with the true "
    "label of each sample.\n\n"
    "If there is an answer in the prediction that is semantically consistent with the true label, then the "
    "prediction for that sample scores a 1 (score_i=1). If there is no answer in the prediction that is "
    "semantically consistent with the true label, then the prediction for that sample scores a 0 (score_i=0). Your "
    "primary task is to provide these scores without delving too deep into the evaluation details. Required "
    "Information for Evaluation: Prediction: {sentence_text} True Label: {ground_truth_text}\n\n"
    "Attributes: {object_descriptions}\n\n"
    "Your score for each dimension should be a single number, not a list. Please evaluate the prediction for each "
    "sample and return your scores in this format:\n\n"
    "Specificity: score: [].\n\n"
    "Logical Consistency: score: []. Accuracy: score: [].\n\n"
    "Your score for each dimension should be a single number, not a list"
)


@dataclass
class JudgeItem:
    """One prediction to judge: which sample/repeat/temperature, the model's text, the filled prompt."""

    key: str
    sample: Any  # queries.PredictSample / events.EventSample
    prediction: str
    prompt: str
    kind: str = "judge"
    sample_id: str = ""  # the replay adapter looks answers up by this


def judge_prompt(prediction: str, truth: str, attributes: str) -> str:
    return JUDGE_PROMPT.format(sentence_text=prediction, ground_truth_text=truth, object_descriptions=attributes)


# ------------------------------------------------------------------------------------------------- agreement


def _ranks(x: list[float]) -> list[float]:
    order = sorted(range(len(x)), key=lambda i: x[i])
    ranks = [0.0] * len(x)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and x[order[j + 1]] == x[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return ranks


def spearman(x: list[float], y: list[float]) -> float | None:
    """Spearman's rank correlation (ties get average ranks); None when either side is constant or n < 2."""
    if len(x) != len(y) or len(x) < 2:
        return None
    rx, ry = _ranks(x), _ranks(y)
    mx, my = sum(rx) / len(rx), sum(ry) / len(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sx = math.sqrt(sum((a - mx) ** 2 for a in rx))
    sy = math.sqrt(sum((b - my) ** 2 for b in ry))
    return None if sx == 0 or sy == 0 else sxy / (sx * sy)


def cohen_kappa(a: list[int], b: list[int]) -> float | None:
    """Cohen's kappa of two 0/1 ratings; 1.0 when they agree everywhere, None when chance agreement is 1 and
    they do not (undefined)."""
    n = len(a)
    if n == 0 or n != len(b):
        return None
    po = sum(x == y for x, y in zip(a, b)) / n
    pa, pb = sum(a) / n, sum(b) / n
    pe = pa * pb + (1 - pa) * (1 - pb)
    if pe == 1:
        return 1.0 if po == 1 else None
    return (po - pe) / (1 - pe)
