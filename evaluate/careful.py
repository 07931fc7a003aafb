"""Yes/no scores read by a careful reader, beside GRASP's first-word rule.

The report's main tables score binary and plausibility answers by GRASP's protocol (`parsing.parse_binary`: the
first word only), so that numbers compare with the paper. That rule credits "Yes and no" as a yes and calls "- Yes"
or "Therefore, the answer is: No." invalid. This section reads the same stored answers with `verdict.read_verdict`
(a careful reader that leaves an answer unparsed rather than guess) and prints, per suite, both accuracies, both
invalid rates, how many answers the two readings disagree on, and how many the first-word rule credits although a
careful reader does not. Intervals resample tests, then trials, then samples, as the main table's suite rows do.

The section is computed from each record's stored final response at report time, so older runs get it too.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable

from voebench.evaluate.uncertainty import Interval
from voebench.evaluate.verdict import read_verdict

KINDS = ("binary", "plausibility")


def reread(record: dict) -> dict:
    """A copy of a scored yes/no record with `parsed`, `valid` and `correct` as the careful reader reads them."""
    verdict = read_verdict(
        record.get("response"), plausibility=record["kind"] == "plausibility", question=record.get("question") or None
    )
    return {
        **record,
        "parsed": verdict or "invalid",
        "valid": verdict is not None,
        "correct": verdict is not None and verdict == record.get("truth"),
    }


def summarize(records: list[dict], interval: Callable[[list[dict]], Interval]) -> list[dict] | None:
    """Per suite, kind and strategy: the first-word and careful accuracies (mean over tests, as the main table),
    invalid rates, disagreements and the first-word credits a careful reader withholds. None without yes/no
    answers or for human panels (their answers are button presses, read the same by both). `interval` is the
    report's suite interval (tests, then trials, then samples resampled)."""
    scored = [
        r for r in records if r.get("kind") in KINDS and r.get("correct") is not None and r.get("participant") is None
    ]
    if not scored:
        return None
    groups: dict[tuple, list[tuple[dict, dict]]] = defaultdict(list)
    for r in scored:
        groups[(r["suite"], r["kind"], r["strategy"])].append((r, reread(r)))
    rows = []
    for (suite, kind, strategy), pairs in sorted(groups.items()):
        firsts = [a for a, _ in pairs]
        carefuls = [b for _, b in pairs]
        iv = interval(carefuls)
        rows.append(
            {
                "suite": suite,
                "kind": kind,
                "strategy": strategy,
                "n": len(pairs),
                "n_tests": len({r["test"] for r in firsts}),
                "first_word_acc": _mean_over_tests(firsts),
                "careful_acc": iv.point,
                "ci95": iv.ci,
                "interval": iv.as_dict(),
                "first_word_invalid": sum(not r["valid"] for r in firsts) / len(firsts),
                "careful_unparsed": sum(not r["valid"] for r in carefuls) / len(carefuls),
                "read_differently": sum(a["parsed"] != b["parsed"] for a, b in pairs),
                "credit_withheld": sum(bool(a["correct"]) and not b["correct"] for a, b in pairs),
                "credit_added": sum(bool(b["correct"]) and not a["correct"] for a, b in pairs),
            }
        )
    return rows


def _mean_over_tests(recs: list[dict]) -> float:
    by_test: dict[str, list[bool]] = defaultdict(list)
    for r in recs:
        by_test[r["test"]].append(bool(r["correct"]))
    return sum(sum(v) / len(v) for v in by_test.values()) / len(by_test)


def markdown(rows: list[dict] | None) -> str:
    if not rows:
        return ""

    def pct(x: float | None) -> str:
        return "–" if x is None else f"{100 * x:.1f}"

    lines = [
        "",
        "## Yes/no answers read by a careful reader",
        "",
        "The tables above follow GRASP's protocol (the answer's first word). Here the same answers are read as a "
        'careful reader reads them (`evaluate/verdict.py`): a final answer after reasoning, markdown, "The answer '
        'is no", "implausible"; an answer with both verdicts or none is unparsed and counts as wrong.',
        "",
        "| suite | kind | strategy | n | first-word acc | careful acc | careful 95% CI | first-word invalid | "
        "careful unparsed | read differently | credit withheld | credit added |",
        "|---|---|---|---:|---:|---:|---|---:|---:|---:|---:|---:|",
    ]
    for r in rows:
        lo, hi = r["ci95"] if r["ci95"] else (None, None)
        ci = "–" if lo is None or hi is None else f"{pct(lo)}–{pct(hi)}"
        if r["interval"].get("note"):
            ci += f" ({r['interval']['note']})"
        lines.append(
            f"| {r['suite']} | {r['kind']} | {r['strategy']} | {r['n']} | {pct(r['first_word_acc'])} | "
            f"{pct(r['careful_acc'])} | {ci} | {pct(r['first_word_invalid'])} | {pct(r['careful_unparsed'])} | "
            f"{r['read_differently']} | {r['credit_withheld']} | {r['credit_added']} |"
        )
    lines += [
        "",
        "Accuracies are means over tests; the interval resamples tests, then trials, then samples. *Credit "
        'withheld*: answers the first-word rule credits that a careful reader does not (e.g. "Yes and no"); '
        "*credit added*: answers a careful reader credits that the first-word rule calls invalid.",
    ]
    return "\n".join(lines) + "\n"
