"""Load test of the human-study server: N scripted participants at once over loopback HTTP (default 50), each
fetching its videos in byte ranges and answering every trial; the server is killed with SIGKILL when half of all
answers are acknowledged, restarted on the same study, and everyone finishes. Prints one JSON line: answers
acknowledged, lost (acknowledged but not stored: must be 0), foreign (stored answers their participant did not
send, or videos that were not the participant's own: must be 0), unanswered trials, wall time.

    .venv/bin/python bench/bench_humans_load.py [--participants 50] [--per-participant 10] [--platform]
        [--min-viewing video|off] [--out FILE]

--platform: everyone arrives at once through the recruiting platform's study URL (/start with Prolific-style ids,
STUDY/platform.json) and is given a slot there; also counted: slots given to two ids (must be 0).
--min-viewing video (default): the server's minimum-viewing rule on (evaluate/humans/viewing.py), and every
participant waits each stand-in video's length (1 s: 8 frames at 8 fps) after its trial is shown, as a viewer does;
counted: answers refused as too early (must be 0). off: the rule off and answers at once (the figures before the
rule existed measured this: the server's throughput, not people's pace).

Needs the `humans` extra (starlette, uvicorn). Traffic goes to 127.0.0.1 only; every loop is bounded.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "tests"))


def main() -> int:
    from humans_fixtures import load_run, make_plausibility_set

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--participants", type=int, default=50)
    ap.add_argument("--per-participant", type=int, default=10)
    ap.add_argument("--pairs", type=int, default=20, help="pairs per test (two tests)")
    ap.add_argument("--kill-at", type=float, default=0.5, help="share of answers acknowledged before kill -9")
    ap.add_argument("--platform", action="store_true", help="participants get their slots through /start")
    ap.add_argument("--min-viewing", choices=("video", "off"), default="video", help="the server's rule (above)")
    ap.add_argument("--out", help="append the JSON line to this file too")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="humans-load-") as tmp:
        root = make_plausibility_set(os.path.join(tmp, "set"), {"t01": args.pairs, "t02": args.pairs}, videos=True)
        out = load_run(
            root,
            os.path.join(tmp, "study"),
            args.participants,
            per_participant=args.per_participant,
            kill_at=args.kill_at,
            platform=args.platform,
            min_viewing=args.min_viewing,
        )
    out.update({"date": time.strftime("%Y-%m-%d %H:%M"), "cpus": os.cpu_count(), "python": platform.python_version()})
    line = json.dumps(out)
    print(line)
    if args.out:
        with open(args.out, "a") as f:
            f.write(line + "\n")
    ok = out["lost"] == 0 and out["foreign"] == 0 and out["unanswered"] == 0 and out["finished"] == args.participants
    ok = ok and out["too_early"] == 0
    if args.platform:
        ok = ok and out["slots_given_twice"] == 0 and out["platform_assigned"] == args.participants
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
