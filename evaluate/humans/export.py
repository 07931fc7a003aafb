"""`voebench humans export STUDY --out RUN_DIR`: every answer as JSONL and CSV, and the study as a run directory
that `voebench report` scores like a model run.

RUN_DIR/answers.jsonl, answers.csv   every answered trial of every participant (practice, attention checks and
                                     repeats included), with its scoring; participants by number, never by token
RUN_DIR/samples.jsonl                the first showing of each judged video to each included participant, in the
                                     shape of evaluate.run's records (suite, test, kind, polarity, parsed, valid,
                                     correct, ...): `repeat` is the vote number of that video (0, 1, 2, ...)
RUN_DIR/run.json                     model "humans", the design, and one row per participant (consent, finished,
                                     attention checks, exclusion); report.py reads its `humans` key for the panel
                                     statistics (stats.py)

Scoring: a yes/no answer is right when it matches the video's plausibility question (yes = plausible /
expected). A surprise rating above the middle of the slider means "not plausible", below it "plausible"; the
middle itself is a valid answer, parsed "middle" (neither: it earns no credit in yes/no accuracy, its rating
counts as given in the pair and retest statistics). The page accepts no rating until the slider was moved, so a
stored 50 was moved there on purpose. A participant who
failed more than `max_failed_checks` attention checks is excluded: their answers stay in answers.jsonl (marked)
but are not scored. So is a participant whose session ended early on a recruiting platform (platform.py:
screened out, or returned: withdrew, declined or timed out); participants.csv has each one's outcome, reason and
platform ids (to approve or reject submissions on the platform) and the focus losses of the session. An answer given
after the page reported that the video could not be played (`media.error`) is
no judgement of the video: kept in answers.jsonl, left out of samples.jsonl.
"""

from __future__ import annotations

import csv
import json
import os
from collections import defaultdict

from voebench import __version__
from voebench.evaluate.humans.design import SLIDER_CHECK_MARGIN, SLIDER_MAX, SLIDER_MID
from voebench.evaluate.humans.stats import ANSWERS
from voebench.evaluate.humans.store import Study
from voebench.evaluate.run import RUN, SAMPLES

#: How much longer than the server's own span (first showing to answer) the page's times may be: rounding and the
#: two clocks' resolution; the page measures strictly inside that span.
RT_SLACK_MS = 100

CSV_COLUMNS = (
    "participant",
    "position",
    "phase",
    "response",
    "video_id",
    "suite",
    "test",
    "condition",
    "twin_order",
    "truth",
    "expect",
    "answer",
    "parsed",
    "valid",
    "correct",
    "rt_ms",
    "rt_start_ms",
    "rt_valid",
    "rt_invalid",
    "reloads",
    "server_ms",
    "response_key",
    "video_played",
    "video_error",
    "replays",
    "focus_lost",
    "fullscreen",
    "video_px",
    "repeat_of",
    "answered_at",
    "excluded",
)


def participant_name(number: int) -> str:
    return f"P{number + 1:03d}"


def parse(trial: dict, value) -> tuple[str | None, bool, bool | None]:
    """(parsed answer, valid, correct) of one answer. Main/practice/repeat: parsed is yes/no (plausible or not);
    attention checks: parsed is the answer given, correct = the asked one; watch trials: no score."""
    if value is None or trial["response"] == "watch":
        return None, value is not None, None
    if trial["response"] == "slider":
        if trial["phase"] == "attention":
            lo, hi = SLIDER_CHECK_MARGIN, SLIDER_MAX - SLIDER_CHECK_MARGIN
            side = "left" if value <= lo else "right" if value >= hi else "middle"
            return side, True, side == trial["expect"]
        parsed = "no" if value > SLIDER_MID else "yes" if value < SLIDER_MID else "middle"
    else:
        parsed = str(value)
    if trial["phase"] == "attention":
        return parsed, True, parsed == trial["expect"]
    valid = parsed in ("yes", "no", "middle")
    return parsed, valid, valid and parsed == trial["truth"]


def export(study_dir: str, out_dir: str, max_failed_checks: int = 0) -> dict:
    study = Study(study_dir)
    try:
        meta, rows = study.meta, study.answers()
    finally:
        study.close()
    design = meta["design"]
    by_person: dict[int, list[dict]] = defaultdict(list)
    for r in rows:
        by_person[r["participant"]].append(r)
    people = []
    excluded = set()
    for number, rs in sorted(by_person.items()):
        answered = [r for r in rs if r["trial"]["phase"] == "attention" and r["answer"] is not None]
        failed = sum(1 for r in answered if not parse(r["trial"], r["answer"])[2])
        reason = f"failed {failed} of {len(answered)} attention checks" if failed > max_failed_checks else None
        outcome = rs[0].get("outcome")
        if outcome in ("screened_out", "returned"):
            reason = f"{outcome.replace('_', ' ')}: {rs[0].get('outcome_reason') or 'withdrew'}"
        if reason:
            excluded.add(number)
        people.append(
            {
                "participant": participant_name(number),
                "seed": rs[0]["participant_seed"],
                "consent": rs[0]["consent"],
                "finished": rs[0]["finished"],
                "answered": sum(1 for r in rs if r["answer"] is not None),
                "trials": len(rs),
                "attention_checks": len(answered),
                "attention_failed": failed,
                "quiz_attempts": rs[0].get("quiz_attempts"),
                "demographics": rs[0].get("demographics"),
                "comment": rs[0].get("comment"),
                "outcome": outcome,
                "outcome_reason": rs[0].get("outcome_reason"),
                "platform_pid": rs[0].get("platform_pid"),
                "platform_session": rs[0].get("platform_session"),
                "focus_lost": sum(int((r["media"] or {}).get("focus_lost") or 0) for r in rs),
                "excluded": reason,
            }
        )
    os.makedirs(out_dir, exist_ok=True)
    answers = []
    for r in rows:
        if r["answer"] is None:
            continue
        t = r["trial"]
        parsed, valid, correct = parse(t, r["answer"])
        media = r["media"] or {}
        entry = t.get("entry") or {}
        answers.append(
            {
                "participant": participant_name(r["participant"]),
                "position": r["position"],
                "phase": t["phase"],
                "response": t["response"],
                "question": t["question"],
                "video_id": t.get("video_id"),
                "suite": entry.get("suite"),
                "test": entry.get("test"),
                "condition": entry.get("condition"),
                "pair_id": entry.get("pair_id"),
                "violation_level": entry.get("violation_level"),
                "twin_order": t.get("twin_order"),
                "truth": t.get("truth"),
                "expect": t.get("expect"),
                "answer": r["answer"],
                "parsed": parsed,
                "valid": valid,
                "correct": correct,
                **timing(r),
                "video_played": media.get("played"),
                "video_error": media.get("error"),
                "replays": media.get("replays"),
                "focus_lost": media.get("focus_lost"),
                "fullscreen": media.get("fullscreen"),
                "video_px": "x".join(map(str, media["video_px"])) if media.get("video_px") else None,
                "repeat_of": t.get("repeat_of"),
                "answered_at": r["answered_at"],
                "excluded": r["participant"] in excluded,
            }
        )
    _write_jsonl(os.path.join(out_dir, ANSWERS), answers)
    with open(os.path.join(out_dir, "answers.csv"), "w", encoding="utf-8", newline="") as fh:
        w = csv.DictWriter(fh, fieldnames=CSV_COLUMNS, extrasaction="ignore")
        w.writeheader()
        w.writerows(answers)
    _write_people_csv(os.path.join(out_dir, "participants.csv"), people)
    samples = _samples(rows, excluded, design)
    _write_jsonl(os.path.join(out_dir, SAMPLES), samples)
    votes: dict[str, int] = defaultdict(int)
    for s in samples:
        votes[s["video_id"]] += 1
    info = {
        "voebench_version": __version__,
        "state": "complete"
        if all(p["finished"] or p["consent"] is False or p["outcome"] in ("screened_out", "returned") for p in people)
        else "incomplete",
        "model": "humans",
        "kind": "humans",
        "strategy": f"human-{design['protocol']}",
        "repeats": max(votes.values(), default=0),
        "seed": design["seed"],
        "repeat_seeds": None,
        "num_frames": None,
        "fps": None,
        "n_samples": len(samples),
        "dataset": meta["set"]["root"],
        "dataset_info": _set_info(meta["set"]),
        "study": os.path.abspath(study_dir),
        "humans": {
            "protocol": design["protocol"],
            "design": design,
            "participants": people,
            "exclusion_rule": f"more than {max_failed_checks} failed attention check(s)",
        },
        "incomplete_pairs_dropped": 0,
    }
    tmp = os.path.join(out_dir, RUN + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(info, fh, indent=2)
    os.replace(tmp, os.path.join(out_dir, RUN))
    return {"answers": len(answers), "samples": len(samples), "participants": len(people), "excluded": len(excluded)}


def timing(r: dict) -> dict:
    """An answer's times (store.py, Timing): rt_ms from the video's end and rt_start_ms from its first frame, as
    the page measured them; reloads; server_ms from the first showing to the answer on the server's clock (spans
    reloads; includes the video and the network). rt_valid (None for answers stored before showings were counted)
    is false, with rt_invalid saying why, where the trial was shown more than once (a reload restarts the page's
    clock and the video), or where the page's times cannot be right: longer than the server saw between sending the
    trial and receiving the answer (plus RT_SLACK_MS), or from the end longer than from the start."""
    views, shown, at = r.get("views"), r.get("first_shown_at"), r.get("answered_at")
    rt, rt0 = r["rt_ms"], r.get("rt_start_ms")
    server_ms = round((at - shown) * 1000) if shown is not None and at is not None else None
    why = None
    if views is not None and views > 1:
        why = "reloaded"
    elif server_ms is not None and max(rt or 0, rt0 or 0) > server_ms + RT_SLACK_MS:
        why = "longer than the server saw"
    elif rt is not None and rt0 is not None and rt > rt0:
        why = "from the end longer than from the start"
    return {
        "rt_ms": rt,
        "rt_start_ms": rt0,
        "rt_valid": None if views is None else why is None,
        "rt_invalid": why,
        "reloads": None if views is None else max(views - 1, 0),
        "server_ms": server_ms,
        "response_key": r.get("response_key"),
    }


def _set_info(info: dict) -> dict:
    """The study's record of its set for run.json: the fingerprint and how many files were hashed, not every hash
    (those stay in the study)."""
    out = {k: v for k, v in info.items() if k != "check"}
    if "check" in info:
        out.update(fingerprint=info["check"]["fingerprint"], files_hashed=len(info["check"]["files"]))
    return out


def _samples(rows: list[dict], excluded: set, design: dict) -> list[dict]:
    """Records in evaluate.run's shape, one per (included participant, judged video), first showing only."""
    out = []
    votes: dict[str, int] = defaultdict(int)
    for r in rows:  # by participant number, then position: vote numbers follow participant order
        t = r["trial"]
        if t["phase"] != "main" or r["answer"] is None or r["participant"] in excluded:
            continue
        if (r["media"] or {}).get("error"):  # the video did not play: no judgement of it (kept in answers.jsonl)
            continue
        parsed, valid, correct = parse(t, r["answer"])
        e = t["entry"]
        vote = votes[t["video_id"]]
        votes[t["video_id"]] += 1
        out.append(
            {
                "sample_id": f"{t['video_id']}#plausibility",
                "video_id": t["video_id"],
                "suite": e["suite"],
                "test": e["test"],
                "kind": "plausibility",
                "truth": t["truth"],
                "polarity": "positive" if t["truth"] == "yes" else "negative",
                "strategy": f"human-{design['protocol']}",
                "condition": e["condition"],
                "index": e["index"],
                "pair_id": e["pair_id"],
                "pair_conditions": e["pair_conditions"],
                "sweep_rank": e.get("sweep_rank"),  # issue 24: a swept trial's violated video (implausible-<rank>)
                "violation_level": e.get("violation_level"),  # None where the study's entry has none: the report
                # then looks the level up in the set (psychometrics/responses.py)
                "test_number": e["test_number"],
                "choices": None,
                "observation": None,
                "example": None,
                "question": e["question"],
                "turns": [{"text": t["question"], "video": t["video"]}],
                "repeat": vote,
                "seed": r["participant_seed"],
                "model": "humans",
                "participant": participant_name(r["participant"]),
                "response": str(r["answer"]),
                "responses": [str(r["answer"])],
                "rating": r["answer"] if t["response"] == "slider" else None,
                "rt_ms": r["rt_ms"],
                "rt_valid": timing(r)["rt_valid"],
                "parsed": parsed,
                "valid": valid,
                "correct": correct,
            }
        )
    return out


def csv_safe(value):
    """A cell a spreadsheet shows as text: a participant's text starting with =, +, -, @ (or a tab or carriage
    return) would be read as a formula, so it gets a leading apostrophe (OWASP's advice on CSV injection)."""
    if isinstance(value, str) and value[:1] in ("=", "+", "-", "@", "\t", "\r"):
        return "'" + value
    return value


def _write_people_csv(path: str, people: list[dict]) -> None:
    """participants.csv: one row per participant, the optional end questions as columns; free text made safe for
    spreadsheets (csv_safe) and quoted by the csv module (commas, quotes and line breaks stay inside the cell)."""
    questions = list(dict.fromkeys(q for p in people for q in (p.get("demographics") or {})))
    base = [k for k in people[0] if k not in ("demographics", "comment")] if people else []
    with open(path, "w", encoding="utf-8", newline="") as fh:
        w = csv.writer(fh)
        w.writerow([*base, *questions, "comment"])
        for p in people:
            demo = p.get("demographics") or {}
            w.writerow([csv_safe(v) for v in (*(p[k] for k in base), *(demo.get(q) for q in questions), p["comment"])])


def _write_jsonl(path: str, rows: list[dict]) -> None:
    tmp = path + ".tmp"
    with open(tmp, "w", encoding="utf-8") as fh:
        for r in rows:
            fh.write(json.dumps(r, ensure_ascii=False) + "\n")
    os.replace(tmp, path)
