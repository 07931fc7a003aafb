"""An answer scored against the simulated truth: pairs F1, the outcome, strict credit; and their aggregate."""

from __future__ import annotations

from dataclasses import dataclass

from .parsed import Parsed
from .reader import parse


@dataclass
class Score:
    tp: int
    fp: int
    fn: int
    precision: float
    recall: float
    f1: float
    outcome_correct: bool  # says "some collision" exactly when there is one
    strict: bool  # the collision pairs exactly right and no hit object called unscathed
    unparsed: bool = False  # the answer could not be read: every column 0 / False

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def score(
    text: str, labels: list[str], true_pairs: list, true_unhit: list | None = None, structured: bool = False
) -> tuple[Parsed, Score]:
    """Pairs precision/recall/F1 for one answer. With no true pair and none predicted, all three are 1 (a correct
    "nothing collides"); with predictions but no true pair, precision 0 and recall 1; with true pairs and none
    predicted, precision 1 (nothing wrong said) and recall 0, so F1 = 0. An unreadable answer scores 0 on every
    column (its true pairs count as missed in the micro sums) and is flagged `unparsed`. Strict credit also needs
    that no true pair is denied and no hit object is called unscathed anywhere in the answer."""
    parsed = parse(text, labels, structured)
    truth = {frozenset(p) for p in true_pairs}
    if parsed.unparsed:
        return parsed, Score(0, 0, len(truth), 0.0, 0.0, 0.0, False, False, True)
    tp = len(parsed.pairs & truth)
    fp = len(parsed.pairs - truth)
    fn = len(truth - parsed.pairs)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    true_hit = {x for p in truth for x in p}
    strict = (
        parsed.pairs == truth
        and not (parsed.claimed_unhit & true_hit)
        and not (parsed.denied & truth)
        and not (parsed.unhit & true_hit)
    )
    return parsed, Score(tp, fp, fn, precision, recall, f1, bool(parsed.pairs) == bool(truth), strict)


def aggregate(scores: list[Score]) -> dict:
    """Micro (pooled pairs) and macro (mean per answer) precision/recall/F1, outcome accuracy, strict rate and the
    unparsed rate; unparsed answers stay in every denominator with 0s."""
    n = len(scores)
    if not n:
        return {"n": 0}
    tp, fp, fn = (sum(getattr(s, k) for s in scores) for k in ("tp", "fp", "fn"))
    mp = tp / (tp + fp) if tp + fp else 1.0
    mr = tp / (tp + fn) if tp + fn else 1.0
    return {
        "n": n,
        "micro_precision": mp,
        "micro_recall": mr,
        "micro_f1": 0.0 if mp + mr == 0 else 2 * mp * mr / (mp + mr),
        "macro_precision": sum(s.precision for s in scores) / n,
        "macro_recall": sum(s.recall for s in scores) / n,
        "macro_f1": sum(s.f1 for s in scores) / n,
        "outcome_accuracy": sum(s.outcome_correct for s in scores) / n,
        "strict": sum(s.strict for s in scores) / n,
        "unparsed_rate": sum(s.unparsed for s in scores) / n,
    }
