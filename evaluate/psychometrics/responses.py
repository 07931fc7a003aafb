"""Responses (trial, level, noticed) per test, from what the scorers wrote: the input of the psychometric report.

- **Video-language models** (samples.jsonl of `voebench evaluate`) and **human panels** (samples.jsonl of
  `voebench humans export`, one record per participant and video): every answer to the plausibility question ("Is
  this video physically plausible?") is one response; **noticed = answered "no"** (called the video
  implausible). An answer the parser could not read (and a human's slider left at the middle) is left out and
  counted, never guessed; so is a failed call (no answer). Other question kinds (Level 1 statements, open
  questions) are not about a violation and are not read.
- **World models** (surprise.jsonl of a surprise run): every violated video compared with the plausible twin of
  its pair_id is one response (a swept trial gives one per level: surprise.metrics.comparisons); **noticed = the
  violated video is the more surprising** at the run's pre-declared context length and the window mean ("avg"),
  the relative accuracy of the surprise report. A tie is left out and counted. Chance is 1/2, so the fit's guess
  rate is fixed at 0.5; there is no level 0 (a video is not compared with itself).
- **Human answers** (answers.jsonl rows of `voebench humans export`): `from_human_answers`, main-phase answers of
  included participants whose video played; noticed = parsed "no". Each response keeps its `participant`, so a
  per-participant fit groups by it and a pooled fit takes them all.

The level of a video is its record's `violation_level` (evaluate copies it from the manifest entry), else the
manifest entry's, read from the set the run names (run.json `dataset`) when it is still there (human exports and
surprise runs written before the field was recorded carry none). The unit is the manifest's `violation_unit`.
A test none of whose videos has a level is *ungraded* (a binary test, or a set rendered without levels): the
report skips it with a note. In a graded test, a video without a level is left out and counted.

The trial, the cluster the bootstrap resamples, is the pair_id (all levels of one trial share the scene before
the onset), else the video.
"""

from __future__ import annotations

import json
import os
from collections import Counter, defaultdict
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from voebench.errors import UsageError

#: Why an answer is not a response: counted per test, printed beside the table.
UNPARSED = "unparsed answer"
MIDDLE = "slider at the middle (neither)"
NO_ANSWER = "no answer (failed call)"
NO_LEVEL = "no violation_level"
TIE = "tie (equal surprise)"
NO_TWIN = "no plausible twin"

YES_NO = "yes/no: answered 'not plausible'"
RELATIVE = "relative: the violated video more surprising than its plausible twin"


@dataclass
class TestResponses:
    """One scorer's responses on one test: mappings with trial, level, noticed (and participant for humans)."""

    suite: str
    test: str
    unit: str = ""
    rows: list[dict] = field(default_factory=list)
    left_out: Counter = field(default_factory=Counter)

    @property
    def key(self) -> tuple[str, str]:
        return (self.suite, self.test)


@dataclass
class ScorerResponses:
    """What one scorer (a run) gives the report: its graded tests, the tests without levels, and how to fit."""

    name: str
    source: str  # the run directory or a description
    measure: str  # YES_NO or RELATIVE
    guess: float | str  # the fit's guess rule: "level0" (yes/no false alarms) or 0.5 (relative accuracy)
    tests: dict[tuple[str, str], TestResponses] = field(default_factory=dict)
    ungraded: list[tuple[str, str]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)


def manifest_levels(root: str | None) -> tuple[dict[str, tuple[float | None, str]], str | None]:
    """video id -> (violation_level, violation_unit) of the set at `root`, and a note when it cannot be read
    (absent, moved, not a set). Never raises: the records' own levels may suffice."""
    if not root:
        return {}, None
    from voebench.evaluate.tasks import load_manifest

    try:
        manifest = load_manifest(root)
    except (UsageError, OSError, ValueError) as e:
        return {}, f"the set {root} named by the run is not readable here ({str(e).splitlines()[0]})"
    out: dict[str, tuple[float | None, str]] = {}
    for entry in manifest.entries:
        level = entry.get("violation_level")
        out[str(entry["id"])] = (None if level is None else float(level), str(entry.get("violation_unit") or ""))
    return out, None


def _level(rec: Mapping, video_id: str, levels: Mapping[str, tuple[float | None, str]]) -> tuple[float | None, str]:
    own = rec.get("violation_level")
    from_set = levels.get(video_id, (None, ""))
    unit = str(rec.get("violation_unit") or from_set[1] or "")
    return (float(own) if own is not None else from_set[0]), unit


def _group(
    items: Iterable[tuple[str, str, float | None, str, dict | None, str | None]], scorer: ScorerResponses
) -> ScorerResponses:
    """Fill `scorer` from (suite, test, level, unit, response row or None, reason left out) items: tests with no
    level anywhere are ungraded; in graded tests, items without a level count as NO_LEVEL."""
    by_test: dict[tuple[str, str], list] = defaultdict(list)
    for item in items:
        by_test[(item[0], item[1])].append(item)
    for key in sorted(by_test):
        got = by_test[key]
        if all(level is None for _s, _t, level, _u, _row, _why in got):
            scorer.ungraded.append(key)
            continue
        tr = TestResponses(*key)
        units = Counter(u for _s, _t, level, u, _row, _why in got if level is not None and u)
        tr.unit = units.most_common(1)[0][0] if units else ""
        if len(units) > 1:
            scorer.notes.append(
                f"{key[0]}/{key[1]}: videos name several units ({', '.join(sorted(units))}); the axis says {tr.unit}"
            )
        for _s, _t, level, _u, row, why in got:
            if level is None:
                tr.left_out[NO_LEVEL] += 1
            elif why is not None:
                tr.left_out[why] += 1
            elif row is not None:
                tr.rows.append({**row, "level": level})
        scorer.tests[key] = tr
    return scorer


def _yes_no_item(
    r: Mapping, levels: Mapping[str, tuple[float | None, str]]
) -> tuple[str, str, float | None, str, dict | None, str | None]:
    video = str(r.get("video_id") or r.get("id"))
    level, unit = _level(r, video, levels)
    parsed = r.get("parsed")
    why: str | None = None
    if r.get("error") or (parsed is None and r.get("response") is None and r.get("answer") is None):
        why = NO_ANSWER
    elif parsed == "middle":
        why = MIDDLE
    elif parsed not in ("yes", "no"):
        why = UNPARSED
    row = {"trial": str(r.get("pair_id") or video), "noticed": parsed == "no", "video": video}
    if r.get("participant") is not None:
        row["participant"] = r["participant"]
    return str(r["suite"]), str(r["test"]), level, unit, (None if why else row), why


def from_yes_no_records(
    records: Iterable[Mapping],
    name: str,
    source: str = "",
    levels: Mapping[str, tuple[float | None, str]] | None = None,
) -> ScorerResponses:
    """A model run's (or a human panel's) per-sample records -> responses to the plausibility question."""
    scorer = ScorerResponses(name, source, YES_NO, "level0")
    recs = [r for r in records if r.get("kind") == "plausibility"]
    if not recs:
        scorer.notes.append("no answers to the plausibility question (yes/no): nothing to fit")
    return _group((_yes_no_item(r, levels or {}) for r in recs), scorer)


def from_human_answers(
    rows: Iterable[Mapping],
    levels: Mapping[str, tuple[float | None, str]] | None = None,
    name: str = "humans",
    source: str = "",
) -> ScorerResponses:
    """answers.jsonl rows of `voebench humans export` -> responses: the main-phase answers of included
    participants whose video played (practice, attention checks, repeats and excluded people are not judgements
    of a graded video); each response keeps its participant."""
    keep = [
        {**r, "kind": "plausibility"}
        for r in rows
        if r.get("phase") == "main"
        and not r.get("excluded")
        and not r.get("video_error")
        and r.get("repeat_of") is None
        and r.get("answer") is not None
    ]
    return from_yes_no_records(keep, name, source, levels)


def from_surprise_records(
    records: list[dict],
    name: str,
    context: int,
    agg: str = "avg",
    source: str = "",
    levels: Mapping[str, tuple[float | None, str]] | None = None,
) -> ScorerResponses:
    """A surprise run's per-video records -> one response per (plausible, violated) comparison."""
    from voebench.evaluate.surprise import metrics

    scorer = ScorerResponses(name, source, RELATIVE, 0.5)
    scorer.notes.append(f"surprise: window {agg} at context {context}; chance 1/2 (the fit's guess rate)")
    levels = levels or {}
    items = []
    paired = set()
    for p, v in metrics.comparisons(records):
        paired.add(v["id"])
        level, unit = _level(v, str(v["id"]), levels)
        a, b = metrics.video_score(p, context, agg), metrics.video_score(v, context, agg)
        why = TIE if a == b else None
        row = {"trial": str(v["pair_id"]), "noticed": b > a, "video": str(v["id"])}
        items.append((str(v["suite"]), str(v["test"]), level, unit, None if why else row, why))
    for r in records:  # violated videos whose plausible twin was not scored
        if not r.get("plausible") and r.get("pair_id") and r["id"] not in paired:
            level, unit = _level(r, str(r["id"]), levels)
            items.append((str(r["suite"]), str(r["test"]), level, unit, None, NO_TWIN))
    return _group(items, scorer)


def load_run(run_dir: str, agg: str = "avg") -> ScorerResponses:
    """The responses of a run folder: a surprise run (surprise.jsonl) or a run of answers (samples.jsonl: a model
    or a human panel), its levels completed from the set run.json names where records lack them."""
    from voebench.evaluate.surprise import report as surprise_report

    info: dict = {}
    rp = os.path.join(run_dir, "run.json")
    if os.path.isfile(rp):
        with open(rp, encoding="utf-8") as fh:
            info = json.load(fh)
    levels, note = manifest_levels(info.get("dataset"))  # units, and levels the records lack
    if surprise_report.is_surprise_run(run_dir):
        from voebench.evaluate.surprise.score import load_curves

        records = load_curves(run_dir)
        need = any(r.get("violation_level") is None for r in records)
        proto = info.get("protocol") or {}
        contexts = proto.get("context_lengths") or (sorted(int(c) for c in records[0]["surprise"]) if records else [0])
        context = proto.get("fixed_context") or contexts[len(contexts) // 2]
        model = info.get("model") or {}
        name = (model.get("name") if isinstance(model, dict) else str(model)) or os.path.basename(run_dir.rstrip("/"))
        out = from_surprise_records(records, str(name), int(context), agg, run_dir, levels)
    else:
        from voebench.evaluate.report import load_records

        records, info = load_records(run_dir)
        need = any(r.get("violation_level") is None for r in records if r.get("kind") == "plausibility")
        name = str(info.get("model") or os.path.basename(run_dir.rstrip("/")))
        out = from_yes_no_records(records, name, run_dir, levels)
    if note and need:
        out.notes.append(note + "; videos without a recorded level count as ungraded or are left out")
    return out
