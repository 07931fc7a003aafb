"""The constant-stimuli design (issue 24): graded videos, several levels of one trial per participant.

A sweep renders, per trial, the plausible video (level 0) and one implausible video per violation level, all
sharing one `pair_id`. The method of constant stimuli shows the levels in a random order, so that the proportion
noticed per level, and a psychometric curve, can be estimated per participant and pooled.

**Cells.** A video's cell is (suite, test, level): its `violation_level` (0 for the plausible twin), or for a video
without a level (a binary test mixed into the selection) its place in its trial (`pairs.video_key`).

**Which videos a participant judges** (`assign`). Each participant judges k videos (`--per-participant`, default all
of them). k is split over the tests in proportion to their videos, and a test's part over its levels as evenly as
possible (`quotas`: the one-more goes to the levels given least so far), so a participant's counts per level of a
test differ by at most one. Within a cell the participant gets the videos seen least often so far by the
participants before (so across participants each (trial, level) is judged about equally often: within one, where
the cells are equally large), then videos of trials this participant has fewest of (so k up to the number of trials
gives one level of each trial: a Latin-square-like design), then a seeded random tie-break.

**Order** (`balanced_order`). The participant's videos are laid out in blocks: block b holds the b-th video of each
of the participant's cells (each cell's videos shuffled), so every level comes about once per block and no level
drifts to the start or the end of the session; each block is shuffled. Two videos of one trial never come back to
back: the next video is the first of the block (else of a later block) whose trial differs from the last one's
and that leaves the rest orderable (no trial holds more than about half of what is left), so the order never gets
stuck. A participant whose videos cannot be ordered so (more than half, rounded up, from one trial) is refused in
one line. Repeated trials (`--repeat-fraction`)
are placed where their neighbours are of other trials, too; attention checks show no video of the set and may go
anywhere. `twin_order` records each video's place among the videos of its trial that this participant sees.

Everything is drawn by random generators seeded by the study seed and the participant's number: the same study seed
gives the same plan.
"""

from __future__ import annotations

import math
import random
from collections import Counter
from collections.abc import Callable
from fractions import Fraction

from voebench.contract import pairs
from voebench.errors import UsageError

NAME = "constant-stimuli"


def level_of(e: dict) -> float | None:
    """The video's violation level, or None (a binary test, or a set made before levels were recorded)."""
    v = e.get("violation_level")
    return None if v is None else float(v)


def trial_of(e: dict) -> str:
    """The trial a video belongs to: its pair_id (all levels of a sweep share it), else its own id."""
    return str(e.get("pair_id") or e["id"])


def cell_of(e: dict) -> tuple[str, str, str]:
    """(suite, test, level): the unit whose count is balanced per participant (see the module docstring)."""
    level = level_of(e)
    return (str(e["suite"]), str(e["test"]), f"{level!r}" if level is not None else pairs.video_key(e))


def is_sweep(entries: list[dict]) -> bool:
    """True when some trial of `entries` holds two or more distinct nonzero violation levels (a sweep)."""
    levels: dict[str, set[float]] = {}
    for e in entries:
        level = level_of(e)
        if level:
            levels.setdefault(trial_of(e), set()).add(level)
    return any(len(v) >= 2 for v in levels.values())


def check_graded(entries: list[dict]) -> None:
    """Refuses a selection without any graded video: constant stimuli need levels to vary."""
    if not any(level_of(e) is not None for e in entries):
        raise UsageError(
            "--design constant-stimuli: no video of the selection has a violation level (violation_level); render "
            "graded videos first, e.g. voebench render grasp-l2 --sweep TEST.violation=LEVELS"
        )


def _apportion(k: int, sizes: list[int], given: list[int], total: int, step: int, rotate: int) -> list[int]:
    """k units over groups of `sizes`: each group's share of everything dealt after this step, step k size /
    total, less what it was `given` before, rounded down; the units left over one each to the groups furthest
    below their share (ties: from group `rotate` on), never more than a group's size."""
    due = [Fraction(step * k * s, total) - g for s, g in zip(sizes, given)]
    q = [max(0, min(math.floor(d), s)) for d, s in zip(due, sizes)]
    while sum(q) > k:  # rounding never overshoots by much: take back from the group least due
        i = min((i for i in range(len(q)) if q[i] > 0), key=lambda i: (due[i] - q[i], i))
        q[i] -= 1
    c = len(sizes)
    order = sorted(range(c), key=lambda i: (-(due[i] - q[i]), (i - rotate) % c))
    while sum(q) < min(k, sum(sizes)):
        for i in order:
            if sum(q) < k and q[i] < sizes[i]:
                q[i] += 1
    return q


def quotas(keys: list[tuple], sizes: list[int], k: int, given: list[int], participant: int) -> list[int]:
    """How many of participant p's k videos come from each cell: first per test, in proportion to the test's
    videos (over participants each test keeps within one video of its share), then within the test over its
    levels as evenly as possible, the one-more going to the levels given least so far. So a participant's counts
    per level of a test differ by at most one, and over participants each (trial, level) is judged about equally
    often."""
    tests = sorted({c[:2] for c in keys})
    members = {t: [i for i, c in enumerate(keys) if c[:2] == t] for t in tests}
    t_sizes = [sum(sizes[i] for i in members[t]) for t in tests]
    t_given = [sum(given[i] for i in members[t]) for t in tests]
    per_test = _apportion(k, t_sizes, t_given, sum(sizes), participant + 1, participant)
    q = [0] * len(keys)
    for t, m in zip(tests, per_test):
        idx = members[t]
        base = [min(m // len(idx), sizes[i]) for i in idx]
        least = sorted(range(len(idx)), key=lambda j: (given[idx[j]], (j - participant) % len(idx)))
        while sum(base) < m:
            for j in least:
                if sum(base) < m and base[j] < sizes[idx[j]]:
                    base[j] += 1
        for j, i in enumerate(idx):
            q[i] = base[j]
    return q


def assign(judged: list[dict], participants: int, k: int, seed: int) -> list[list[dict]]:
    """The k videos each participant judges (participant number = list index), unordered; see the module
    docstring for the rules."""
    cells: dict[tuple, list[dict]] = {}
    for e in judged:
        cells.setdefault(cell_of(e), []).append(e)
    keys = sorted(cells)
    sizes = [len(cells[c]) for c in keys]
    seen: Counter[str] = Counter()  # video id -> participants so far who judge it
    given = [0] * len(keys)  # videos of each cell dealt so far
    out = []
    for p in range(participants):
        rng = random.Random(f"{seed}/constant-stimuli/{p}")
        tie = {e["id"]: rng.random() for e in judged}
        left = quotas(keys, sizes, k, given, p)
        given = [g + x for g, x in zip(given, left)]
        mine: list[dict] = []
        taken: set[str] = set()
        per_trial: Counter[str] = Counter()
        while any(left):
            for i, c in enumerate(keys):
                if not left[i]:
                    continue
                free = [e for e in cells[c] if e["id"] not in taken]
                best = min(free, key=lambda e: (seen[e["id"]], per_trial[trial_of(e)], tie[e["id"]]))
                mine.append(best)
                taken.add(best["id"])
                per_trial[trial_of(best)] += 1
                left[i] -= 1
        seen.update(e["id"] for e in mine)
        out.append(mine)
    return out


def _can_follow(counts: Counter[str], last: str | None) -> bool:
    """Whether videos with these per-trial `counts` can be ordered, after a video of trial `last`, with no two of
    one trial in a row: the last trial at most half of them (rounded down), any other at most half rounded up."""
    total = sum(counts.values())
    return all(n <= (total // 2 if t == last else (total + 1) // 2) for t, n in counts.items())


def balanced_order(mine: list[dict], rng: random.Random) -> list[dict]:
    """The participant's videos in blocks of one video per cell (each cell's videos shuffled, each block
    shuffled), never two of one trial back to back: the next video is the first of the current block whose trial
    differs from the last one and leaves the rest orderable (`_can_follow`); where the block has none, the first
    such video of a later block. Refuses (one line) videos that cannot be so ordered at all (more than half of
    them, rounded up, from one trial)."""
    counts = Counter(trial_of(e) for e in mine)
    if mine and not _can_follow(counts, None):
        worst, n = counts.most_common(1)[0]
        raise UsageError(
            f"--design constant-stimuli: {n} of a participant's {len(mine)} videos are of one trial ({worst}): they "
            "cannot be ordered without two back to back; select more trials or lower --per-participant"
        )
    cells: dict[tuple, list[dict]] = {}
    for e in sorted(mine, key=lambda e: e["id"]):
        cells.setdefault(cell_of(e), []).append(e)
    for c in sorted(cells):
        rng.shuffle(cells[c])
    depth = max((len(v) for v in cells.values()), default=0)
    blocks = []
    for b in range(depth):
        block = [cells[c][b] for c in sorted(cells) if b < len(cells[c])]
        rng.shuffle(block)
        blocks.append(block)
    seq: list[dict] = []
    while any(blocks):
        last = trial_of(seq[-1]) if seq else None
        pick = None
        for block in blocks:
            for e in block:
                t = trial_of(e)
                counts[t] -= 1
                if t != last and _can_follow(counts, t):
                    pick = e
                    break
                counts[t] += 1
            if pick is not None:
                block.remove(pick)
                break
        assert pick is not None  # the first check guarantees a next video (the most frequent trial's, at worst)
        seq.append(pick)
    return seq


def twin_order(seq: list[dict]) -> dict[str, int]:
    """video id -> its place (1 = first) among this participant's videos of its trial, for trials seen twice or
    more."""
    counts = Counter(trial_of(e) for e in seq)
    place: Counter[str] = Counter()
    out = {}
    for e in seq:
        t = trial_of(e)
        if counts[t] > 1:
            place[t] += 1
            out[e["id"]] = place[t]
    return out


def _neighbour_video(seq: list[dict], i: int, step: int, is_video: Callable[[dict], bool]) -> dict | None:
    while 0 <= i < len(seq):
        if is_video(seq[i]):
            return seq[i]
        i += step
    return None


def repeat_slot(seq: list[dict], trial: str, after: int, rng: random.Random, key: Callable[[dict], str]) -> int | None:
    """Where to insert a repeat of a video of `trial` (an index of `seq`, at least `after`): a seeded choice among
    the places whose previous and next videos are of other trials; None where there is no such place."""
    places = list(range(after, len(seq) + 1))
    rng.shuffle(places)

    def is_video(t: dict) -> bool:
        return bool(t.get("video_id"))

    for q in places:
        before = _neighbour_video(seq, q - 1, -1, is_video)
        nxt = _neighbour_video(seq, q, 1, is_video)
        if all(t is None or key(t) != trial for t in (before, nxt)):
            return q
    return None


def settle(trials: list[dict], key: Callable[[dict], str]) -> None:
    """Moves each attention check that shows a video (a re-shown one, or a catch video) away from a video of its
    own trial: where the video before or after it is of the same trial, it goes to the nearest place after the
    first showing of its video whose neighbouring videos are of other trials (left where it is if there is none).
    Positions are to be renumbered afterwards."""

    def is_video(t: dict) -> bool:
        return bool(t.get("video"))

    def clear(at: int, trial: str) -> bool:
        """Inserting a video of `trial` before index `at` puts it next to no video of that trial."""
        before = _neighbour_video(trials, at - 1, -1, is_video)
        nxt = _neighbour_video(trials, at, 1, is_video)
        return all(t is None or key(t) != trial for t in (before, nxt))

    for t in [t for t in trials if t["phase"] == "attention" and is_video(t)]:
        i = next(n for n, s in enumerate(trials) if s is t)
        trials.pop(i)
        trial = key(t)
        if clear(i, trial):
            trials.insert(i, t)
            continue
        source = t.get("catch_of") or t.get("video_id")
        first = next((n for n, s in enumerate(trials) if s.get("video_id") == source and s["phase"] != "attention"), -1)
        places = sorted(range(first + 1, len(trials) + 1), key=lambda q: (abs(q - i), q))
        trials.insert(next((q for q in places if clear(q, trial)), i), t)
