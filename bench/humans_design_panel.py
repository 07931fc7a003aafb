"""Simulated study designs for issue 25's defects 1-3 (design only, no server): an AVoE --both-conditions set (3 tests
x 40 pairs, split by the generator's rule), 60 participants, and a GRASP set (2 x 20 pairs), 50 participants with 10
videos each. Prints how many familiarization trials are surprising, which splits the judged trials come from, and
how many participants practised on a video and then judged its twin or judged both twins of a pair.

    .venv/bin/python bench/humans_design_panel.py
"""

import os
import sys
import tempfile
from collections import Counter

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests"))
from humans_fixtures import make_plausibility_set
from voebench.contract import manifest as mf
from voebench.scenes.avoe import split_of
from voebench.evaluate.humans import design
from voebench.evaluate.tasks import load_manifest

tmp = tempfile.mkdtemp()
# AVoE --both-conditions: 3 tests x 40 pairs (expected + surprising), split by the generator's rule (75/15/10)
root = make_plausibility_set(os.path.join(tmp, "avoe"), {"A1": 40, "A2": 40, "A3": 40}, suite="avoe")
entries = mf.read_manifest(os.path.join(root, mf.NAME))
for e in entries:
    e["split"] = split_of(1000 * int(e["test_number"]) + int(e["index"]))
mf.write_manifest(os.path.join(root, mf.NAME), entries)
print("avoe set splits:", dict(Counter(e["split"] for e in entries)))
d = design.default_design("avoe", 60)
main, other = design.eligible(load_manifest(root), d)
plans = design.plan(d, main, other)
fam = [t for p in plans for t in p if t["phase"] == "practice"]
judged = [t for p in plans for t in p if t["phase"] in ("main", "repeat")]
split = {e["id"]: e["split"] for e in entries}
print(
    f"AVoE 60 participants: familiarization {len(fam)} trials, surprising {sum(t['truth'] != 'yes' for t in fam)}; "
    f"judged {len(judged)} trials, by split {dict(Counter(split[t['video_id']] for t in judged))}"
)

# GRASP: 2 tests x 20 pairs, 50 participants, 3 votes, 10 videos each (the load test's design)
root = make_plausibility_set(os.path.join(tmp, "grasp"), {"t01": 20, "t02": 20})
d = design.default_design("grasp", 50, per_participant=10)
main, other = design.eligible(load_manifest(root), d)
plans = design.plan(d, main, other)


def pair(v: str) -> str:
    return v.rsplit("-", 1)[0]


giveaway = both = 0
for p in plans:
    prac = {pair(t["video_id"]) for t in p if t["phase"] == "practice"}
    mains = [pair(t["video_id"]) for t in p if t["phase"] == "main"]
    giveaway += bool(prac & set(mains))
    both += len(set(mains)) < len(mains)
all_prac = {pair(t["video_id"]) for p in plans for t in p if t["phase"] == "practice"}
judged_by_anyone = {pair(t["video_id"]) for p in plans for t in p if t["phase"] == "main"}
votes = Counter(t["video_id"] for p in plans for t in p if t["phase"] == "main")
print(
    f"GRASP 50 participants: practised-then-judged-the-twin {giveaway}; judge both twins {both}; practice pairs "
    f"judged by someone {len(all_prac & judged_by_anyone)} of {len(all_prac)}; judged videos {len(votes)}, votes "
    f"min {min(votes.values())} max {max(votes.values())}"
)
