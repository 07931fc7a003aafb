"""A simulated panel of 60 participants per protocol through the recruiting-platform flow (issue 25), over loopback
HTTP against `voebench humans serve` (a subprocess): each arrives at /start with Prolific-style ids, consents, takes
the comprehension quiz and answers every trial, fetching each video and recognising it by its bytes (stand-in files
of distinct content), so the checks read what each participant was really sent, not the plan. Mixed in: participants
who fail the quiz (3 attempts), fail an attention check, withdraw after 2 answers, or decline consent; then a second
session of a finished participant id and one id more than there are slots.

Checked and printed, per protocol (GRASP: 2 tests x 50 pairs, 3 votes, 10 videos each; AVoE: 3 tests x 40 pairs,
--both-conditions, split by the generator's rule):
  - no participant judges both videos of a pair, nor a pair they practised on (GRASP, without --twins; GRASP's
    practice shows both videos of a pair set aside for practice, AVoE shows both by design)
  - familiarization/practice videos: AVoE only expected ones
  - judged videos: AVoE only the test split
  - every acknowledged answer is in the export (answers.jsonl), with the answer sent
  - every participant's end page carries the completion code of their outcome
  - a second session of a participant id is refused (409) and recorded; an id over the slots is told it is full

    .venv/bin/python bench/humans_platform_panel.py [--participants 60] [--workers 12] [--out FILE]

Writes the result JSON to bench/results/humans-platform-panel-<date>.json unless --out names another file. Exit 1
when a check fails.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))

QUIZ = [{"question": "When does the answer unlock?", "choices": ["at once", "after the video"], "answer": 1}]
CODES = {"completed": "DONE1234", "screened_out": "SCRN5678", "returned": "RETN9012"}
#: The mix of behaviours (the rest complete): outcome each must end with.
MIX = {"fail_quiz": 4, "fail_checks": 4, "withdraw": 3, "decline": 2}
OUTCOME = {
    "complete": "completed",
    "fail_quiz": "screened_out",
    "fail_checks": "screened_out",
    "withdraw": "returned",
    "decline": "returned",
}


def avoe_set(root: str) -> str:
    from humans_fixtures import make_plausibility_set

    from voebench.contract import manifest as mf
    from voebench.scenes.avoe import split_of

    make_plausibility_set(root, {"A1": 40, "A2": 40, "A3": 40}, suite="avoe", videos=True)
    entries = mf.read_manifest(os.path.join(root, mf.NAME))
    for e in entries:
        e["split"] = split_of(1000 * int(e["test_number"]) + int(e["index"]))
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    return root


def run_panel(protocol: str, set_dir: str, study_dir: str, n: int, workers: int, create: list[str]) -> dict:
    from humans_fixtures import PlatformParticipant, Server, stand_in_videos, write_platform

    from voebench.evaluate.humans.export import export, participant_name
    from voebench.evaluate.humans.store import Study

    server = Server(set_dir, study_dir, "--protocol", protocol, "--participants", str(n), *create)
    write_platform(study_dir, server.base, study_id="STUDY0001", max_failed_checks=0)
    os.makedirs(os.path.join(study_dir, "texts"))
    with open(os.path.join(study_dir, "texts", "quiz.json"), "w") as f:
        json.dump(QUIZ, f)
    videos = stand_in_videos(set_dir)
    behaviours = [b for b, k in MIX.items() for _ in range(k)]
    behaviours += ["complete"] * (n - len(behaviours))
    people = [
        PlatformParticipant(
            server.base, f"PID{i:021d}", f"S{i:05d}", videos, behaviour=b, quiz=[QUIZ[0]["answer"]], seed=i
        )
        for i, b in enumerate(behaviours)
    ]
    server.start()
    t0 = time.monotonic()
    try:

        def go(p):
            status, where = p.start()
            assert status == 303, (status, where)
            return p.run()

        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(go, people))
        seconds = time.monotonic() - t0
        again = PlatformParticipant(server.base, people[-1].pid, "another", videos)
        second = again.start()[0]
        extra = PlatformParticipant(server.base, "PIDoverTheSlots", "S1", videos)
        full = extra.start()[0]
    finally:
        server.stop()
    s = Study(study_dir)
    numbers = {tok: num for num, tok in s.tokens()}
    refusals = Counter(r["reason"] for r in s.refusals())
    s.close()
    with tempfile.TemporaryDirectory() as out:
        export(study_dir, out)
        with open(os.path.join(out, "answers.jsonl")) as f:
            exported = {(a["participant"], a["position"]): a["answer"] for a in map(json.loads, f)}
    acked = {(participant_name(numbers[p.token]), pos): v for p in people for pos, v in p.acked.items()}
    missing = sum(1 for k, v in acked.items() if exported.get(k, "missing") != v)
    wrong_code = [
        p.pid
        for p in people
        if not p.final
        or (p.final.get("completion") or {}).get("code") != CODES[OUTCOME[p.behaviour]]
        or (p.final.get("outcome") or "completed") != OUTCOME[p.behaviour]
    ]
    seen = [(p, pos, kind, e) for p in people for pos, kind, e in p.seen]
    unknown = sum(1 for *_, e in seen if e is None)  # catch videos are the study's own (none in this panel)

    def judged_of(p) -> list[dict]:
        return [e for _, kind, e in p.seen if kind == "judged" and e]

    # GRASP's practice shows both videos of a pair set aside for practice (judged by nobody); attention checks
    # show a video seen before: so the twin rule is on the judged videos, and on practice pairs judged later
    both_twins = sum(
        1 for p in people if len({e["pair_id"] for e in judged_of(p)}) < len({e["id"] for e in judged_of(p)})
    )
    practised_then_judged = sum(
        1
        for p in people
        if {e["pair_id"] for _, kind, e in p.seen if kind == "practice" and e} & {e["pair_id"] for e in judged_of(p)}
    )
    practice = [e for _, _, kind, e in seen if kind == "practice" and e]
    judged = [e for _, _, kind, e in seen if kind == "judged" and e]
    return {
        "protocol": protocol,
        "participants": n,
        "behaviours": dict(Counter(behaviours)),
        "outcomes": dict(Counter((p.final or {}).get("outcome") or "completed" for p in people)),
        "seconds": round(seconds, 1),
        "answers_acked": len(acked),
        "answers_acked_missing_from_export": missing,
        "wrong_completion_code": wrong_code,
        "videos_sent": len(seen),
        "videos_not_recognised": unknown,
        "participants_judging_both_twins": both_twins,
        "participants_judging_a_practised_pair": practised_then_judged,
        "practice_videos": len(practice),
        "practice_videos_unexpected": sum(1 for e in practice if e["condition"] != "plausible"),
        "judged_videos_by_split": dict(Counter(e.get("split") or "none" for e in judged)),
        "second_session_status": second,
        "over_slots_status": full,
        "refusals_recorded": dict(refusals),
    }


def main() -> int:
    from humans_fixtures import make_plausibility_set

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--participants", type=int, default=60)
    ap.add_argument("--workers", type=int, default=12, help="participants at once")
    ap.add_argument("--out", help="result JSON (default bench/results/humans-platform-panel-<date>.json)")
    args = ap.parse_args()
    results = []
    with tempfile.TemporaryDirectory(prefix="humans-panel-") as tmp:
        grasp = make_plausibility_set(os.path.join(tmp, "grasp"), {"t01": 50, "t02": 50}, videos=True)
        grasp_args = ["--votes", "3", "--per-participant", "10", "--attention-checks", "2"]
        results.append(
            run_panel("grasp", grasp, os.path.join(tmp, "s-grasp"), args.participants, args.workers, grasp_args)
        )
        avoe = avoe_set(os.path.join(tmp, "avoe"))
        results.append(
            run_panel(
                "avoe", avoe, os.path.join(tmp, "s-avoe"), args.participants, args.workers, ["--attention-checks", "2"]
            )
        )
    ok = True
    for r in results:
        checks = {
            "every acknowledged answer exported": r["answers_acked_missing_from_export"] == 0,
            "completion code per outcome": not r["wrong_completion_code"],
            "every video recognised": r["videos_not_recognised"] == 0,
            "second session refused": r["second_session_status"] == 409
            and r["refusals_recorded"].get("second session") == 1,
            "over the slots: full": r["over_slots_status"] == 503,
        }
        if r["protocol"] == "grasp":
            checks["no participant judges both twins"] = r["participants_judging_both_twins"] == 0
            checks["no participant judges a pair practised on"] = r["participants_judging_a_practised_pair"] == 0
        else:
            checks["familiarization only expected videos"] = r["practice_videos_unexpected"] == 0
            checks["judged only the test split"] = set(r["judged_videos_by_split"]) == {"test"}
        r["checks"] = checks
        ok = ok and all(checks.values())
        print(json.dumps(r))
    out = args.out or os.path.join(HERE, "results", f"humans-platform-panel-{time.strftime('%Y-%m-%d')}.json")
    with open(out, "w") as f:
        json.dump({"date": time.strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(), "panels": results}, f, indent=1)
    print(f"{'all checks pass' if ok else 'CHECKS FAILED'} -> {out}")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
