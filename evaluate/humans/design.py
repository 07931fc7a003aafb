"""Which trials each participant sees, in which order: the study's design, fixed when the study is created.

GRASP protocol: every video is judged plausible or not (yes/no) by `votes` participants (3 in GRASP, whose report
takes the majority); the videos are dealt out so that each participant sees `per_participant` different videos
and each video gets at least `votes` votes, and nobody judges both videos of a pair (unless `twins`). Two practice
trials with feedback (one plausible, one implausible) come first, on pairs set aside that no participant judges.

AVoE protocol: every participant sees every test-split video (or `per_participant` of them) and rates how
surprising it was on a slider (or answers yes/no); familiarization trials show expected videos only (the training
split's, else the validation split's); a share of the trials is shown a second time later in the session
(test-retest consistency). Where a participant sees both videos of a pair, which comes first rotates over the
participants (counterbalanced) and is recorded per trial as `twin_order`.

Both: attention checks with one unambiguous answer are mixed into the trials, and each participant's order comes
from a seed derived from the study seed and the participant's number, recorded with the study.

Design (`--design`): "standard" is the above. "constant-stimuli" (issue 24, for graded videos: a sweep's trials
hold one plausible and several implausible videos, one per violation level) shows each participant several levels
of each trial in a balanced random order: see constant_stimuli.py. Each participant judges every video unless
`per_participant` (or `votes`, as in GRASP: just enough for that many answers per video) asks for fewer; no
default number of votes; twins are the point of it; practice and
familiarization come from whole trials set aside (or AVoE training/validation videos), never from judged trials.
A study made without a design (the API's default) is "standard"; the CLI's "auto" picks constant-stimuli when the
selection is a sweep (`choose_design`).

A trial is a plain dict (stored as JSON): position, phase (practice | main | attention | repeat), response
(yesno | slider | watch), question, video_id/video (manifest id and path, never sent to the browser: the file
name tells the condition), truth ("yes" = plausible / expected), expect (attention checks), repeat_of.
"""

from __future__ import annotations

import hashlib
import math
import random
import re
from dataclasses import asdict, dataclass, field

from voebench.contract import pairs
from voebench.errors import UsageError
from voebench.evaluate.humans import catch, viewing
from voebench.evaluate.humans import constant_stimuli as cs
from voebench.evaluate.tasks import Manifest, select

PROTOCOLS = ("grasp", "avoe")
DESIGNS = ("standard", cs.NAME)
RESPONSES = ("yesno", "slider")

#: Slider ratings run 0..100; the thumb starts at 50 and the page accepts no rating until it was moved, so a stored
#: 50 (moved away and back) is a valid answer at the middle.
SLIDER_MAX = 100
SLIDER_MID = 50
#: An attention check on the slider passes when the thumb is this close to the asked end.
SLIDER_CHECK_MARGIN = 10

AVOE_QUESTION = "How surprising was what happened in this video?"
SLIDER_LABELS = ("not surprising at all", "very surprising")
_ANSWER_ONLY = re.compile(r"\s*Answer only with yes or no\.?\s*$", re.IGNORECASE)


@dataclass
class Design:
    """The settings a study is created with (stored in the study file; a later `serve` must agree)."""

    protocol: str
    participants: int
    seed: int = 0
    votes: int | None = None  # grasp: votes per video (default 3); avoe: None (everyone sees every video)
    per_participant: int | None = None  # main videos per participant (default: from votes, or all)
    familiarization: int = 2
    attention_checks: int = 2
    repeat_fraction: float = 0.0  # share of main trials shown again later (avoe default 0.25)
    response: str = "yesno"  # grasp: yesno; avoe: slider (default) or yesno
    suites: list[str] | None = None
    tests: list[str] | None = None
    limit: int | None = None
    extra: dict = field(default_factory=dict)
    #: Whether one participant may see both videos of a pair (AVoE: yes, everyone sees every video; GRASP: no,
    #: unless asked). Where they do, which video of the pair comes first alternates over participants (recorded
    #: per trial as `twin_order`).
    twins: bool | None = None
    #: "standard" or "constant-stimuli" (None: standard; the CLI resolves "auto" before the study is made).
    design: str | None = None
    #: Catch videos per participant (catch.py): attention checks that test watching.
    catch_videos: int = 0
    #: The server's minimum-viewing rule (viewing.py): "video" (no answer before the video can have played
    #: through) or "off" (scripted clients only; the page still waits for the video's end).
    min_viewing: str = "video"

    def as_dict(self) -> dict:
        return asdict(self)


def default_design(protocol: str, participants: int, **given) -> Design:
    """The protocol's defaults, overridden by the options the user gave (None = not given)."""
    if protocol not in PROTOCOLS:
        raise UsageError(f"--protocol {protocol}: choose one of {', '.join(PROTOCOLS)}")
    if participants < 1:
        raise UsageError("--participants must be at least 1")
    constant = given.get("design") == cs.NAME
    if given.get("design") not in (None, *DESIGNS):
        raise UsageError(f"--design {given['design']}: choose one of auto, {', '.join(DESIGNS)}")
    base = (
        {"votes": None if constant else 3, "response": "yesno", "repeat_fraction": 0.0}
        if protocol == "grasp"
        else {"votes": None, "response": "slider", "repeat_fraction": 0.25}
    )
    base.update({k: v for k, v in given.items() if v is not None})
    d = Design(protocol=protocol, participants=participants, **base)
    if d.twins is None:
        d.twins = protocol == "avoe" or constant
    if constant and not d.twins:
        raise UsageError("--design constant-stimuli shows several levels of one trial to a participant: twins needed")
    if d.min_viewing not in viewing.RULES:
        raise UsageError(f"--min-viewing {d.min_viewing}: choose one of {', '.join(viewing.RULES)}")
    if d.response not in RESPONSES:
        raise UsageError(f"--response {d.response}: choose one of {', '.join(RESPONSES)}")
    if protocol == "grasp" and d.response != "yesno":
        raise UsageError("--response slider: the GRASP protocol asks yes/no (use --protocol avoe for ratings)")
    if d.votes is not None and d.votes < 1:
        raise UsageError("--votes must be at least 1")
    if not 0.0 <= d.repeat_fraction <= 1.0:
        raise UsageError("--repeat-fraction must lie in [0, 1]")
    for name in ("familiarization", "attention_checks", "catch_videos"):
        if getattr(d, name) < 0:
            raise UsageError(f"--{name.replace('_', '-')} must not be negative")
    return d


def participant_seed(study_seed: int, number: int) -> int:
    """The seed of participant `number`'s order: first 4 bytes of sha256('<seed>/participant/<n>'), 31 bits."""
    h = hashlib.sha256(f"{study_seed}/participant/{number}".encode()).digest()
    return int.from_bytes(h[:4], "little") & 0x7FFFFFFF


def plausibility_prompt(entry: dict) -> dict | None:
    return next((p for p in entry["prompts"] if p["kind"] == "plausibility"), None)


def human_question(prompt: dict) -> str:
    """The model's plausibility question without its instruction to the model ("Answer only with yes or no")."""
    return _ANSWER_ONLY.sub("", str(prompt["text"])).strip()


def choose_design(manifest: Manifest, suites: list[str] | None, tests: list[str] | None, limit: int | None) -> str:
    """`--design auto`: constant-stimuli when the selection is a sweep (a trial with two or more nonzero violation
    levels), else standard."""
    return cs.NAME if cs.is_sweep(select(manifest, suites, tests, limit)) else "standard"


def eligible(manifest: Manifest, d: Design) -> tuple[list[dict], list[dict]]:
    """(the videos to judge, the videos for familiarization). Only videos with a plausibility question can be
    judged (Level 2, AVoE); Level 1 asks about observations, which this study does not cover."""
    entries = select(manifest, d.suites, d.tests, d.limit)
    judged = [e for e in entries if plausibility_prompt(e) is not None]
    if not judged:
        raise UsageError(
            f"{manifest.root}: no video of the selection has a plausibility question (GRASP Level 2 and AVoE "
            "have one; Level 1 does not)"
        )
    no_mp4 = [e["id"] for e in judged if not e.get("video")]
    if no_mp4:
        raise UsageError(
            f"{manifest.root}: {len(no_mp4)} of the {len(judged)} selected videos have no mp4 (a --states-only render, "
            f"e.g. {no_mp4[0]}); a human study needs the videos"
        )
    # AVoE: the test split is judged; train and validation videos are never judged (familiarization may show them)
    main = [e for e in judged if e.get("split") in (None, "", "test")]
    if not main:
        raise UsageError(
            f"{manifest.root}: the selection holds no AVoE test-split video (only train/validation); a study judges "
            "the test split"
        )
    held = [e for e in judged if e.get("split") in ("train", "validation")]
    held.sort(key=lambda e: e.get("split") != "train")  # training videos first, then validation
    return main, held


def _truth(entry: dict) -> str:
    prompt = plausibility_prompt(entry)
    assert prompt is not None
    return str(prompt["answer"]).lower()


def videos_per_participant(d: Design, n_videos: int) -> int:
    """How many main videos each participant sees; refuses a panel too small for the votes asked."""
    k = d.per_participant
    if k is None:
        k = n_videos if d.votes is None else math.ceil(n_videos * d.votes / d.participants)
    if k < 1:
        raise UsageError("--per-participant must be at least 1")
    if k > n_videos:
        if d.per_participant is not None:
            raise UsageError(f"--per-participant {k}: the selection has only {n_videos} videos")
        raise UsageError(
            f"{d.votes} votes per video need at least {d.votes} participants (each sees a video once); "
            f"got --participants {d.participants}"
        )
    if d.votes is not None and d.participants * k < n_videos * d.votes:
        raise UsageError(
            f"{d.participants} participants x {k} videos = {d.participants * k} answers < {n_videos} videos x "
            f"{d.votes} votes; raise --participants or --per-participant"
        )
    return k


def _main_trial(e: dict, d: Design) -> dict:
    prompt = plausibility_prompt(e)
    assert prompt is not None
    slider = d.response == "slider"
    return {
        "phase": "main",
        "response": d.response,
        "question": AVOE_QUESTION if slider else human_question(prompt),
        "video_id": e["id"],
        "video": e["video"],
        "truth": _truth(e),
        "entry": entry_fields(e),
    }


def entry_fields(e: dict) -> dict:
    """What the export needs of the manifest entry, kept with the trial so a study exports without its set."""
    return {
        "suite": e["suite"],
        "test": e["test"],
        "index": int(e.get("index", 0)),
        "condition": str(e.get("condition", "")),
        "pair_id": e.get("pair_id"),
        "pair_conditions": list(pairs.expected_conditions(e) or []) or None,
        "test_number": e.get("test_number"),
        "width": e.get("width"),  # the video's size: the page sizes its box to this aspect ratio
        "height": e.get("height"),
        "n_frames": e.get("n_frames"),  # its length: the server's minimum-viewing rule (viewing.py)
        "fps": e.get("fps"),
        "question": str(plausibility_prompt(e)["text"]),  # type: ignore[index]
        # graded videos (issue 24): the level for the report's curves; a sweep's rank names the violated video of
        # its trial (`implausible-<rank>`, as in pair_conditions), so the report sees whole trials
        **(
            {"violation_level": cs.level_of(e), "violation_unit": e.get("violation_unit")}
            if cs.level_of(e) is not None
            else {}
        ),
        **({"sweep_rank": e["sweep_rank"]} if e.get("sweep_rank") else {}),
    }


def _attention(rng: random.Random, d: Design) -> dict:
    if d.response == "slider":
        side = rng.choice(("left", "right"))
        question = f"Attention check: move the slider all the way to the {side}, whatever you think of the video."
        return {"phase": "attention", "response": "slider", "question": question, "expect": side}
    answer = rng.choice(("yes", "no"))
    question = f"Attention check: please answer “{answer.capitalize()}” to this question."
    return {"phase": "attention", "response": "yesno", "question": question, "expect": answer}


def attention_videos(trials: list[dict], rng: random.Random) -> None:
    """Give each attention check a video, so it looks like any other trial (issue 25, defect 8: checks without a
    video tested reading, not watching). The video is one the participant has already seen earlier in the
    session, so it adds no judgement and never shows a new twin: a practice/familiarization video where there is
    one (never judged), else an earlier judged one; seeded by the participant."""
    for i, t in enumerate(trials):
        if t["phase"] != "attention" or t.get("check") == "catch":  # a catch trial has its own video
            continue
        before = [s for s in trials[:i] if s.get("video") and s["phase"] != "attention"]
        pool = [s for s in before if s["phase"] == "practice"] or before
        if pool:
            shown = rng.choice(pool)
            t.update(video_id=shown["video_id"], video=shown["video"], entry=shown.get("entry"))


def pair_key(e: dict) -> str:
    """The pair a video belongs to (its own id where it has no twin)."""
    return str(e.get("pair_id") or e["id"])


def _groups(entries: list[dict]) -> dict[str, list[dict]]:
    out: dict[str, list[dict]] = {}
    for e in entries:
        out.setdefault(pair_key(e), []).append(e)
    return out


def practice_split(d: Design, main: list[dict], held: list[dict] | None = None) -> tuple[list[dict], list[dict]]:
    """GRASP: (practice videos, videos to judge). Practice gives the right answer, so its videos are set aside
    as whole pairs that no participant judges: pairs drawn (seeded) until there are ceil(familiarization / 2)
    plausible and as many implausible videos, or the pairs run out. AVoE (watch-only familiarization) and a
    study without practice set nothing aside, except a constant-stimuli AVoE study whose selection has no expected
    training/validation video (`held`): its familiarization videos come from whole trials set aside, too."""
    avoe_aside = d.design == cs.NAME and d.protocol == "avoe" and not any(_truth(e) == "yes" for e in held or [])
    if (d.protocol != "grasp" and not avoe_aside) or d.familiarization == 0:
        return [], main
    groups = _groups(main)
    keys = sorted(groups)
    random.Random(f"{d.seed}/practice").shuffle(keys)
    need_yes, need_no = (d.familiarization, 0) if avoe_aside else (math.ceil(d.familiarization / 2),) * 2
    chosen: list[str] = []
    for key in keys:
        have = [_truth(e) for k in chosen for e in groups[k]]
        if have.count("yes") >= need_yes and have.count("no") >= need_no:
            break
        chosen.append(key)
    judged = [e for e in main if pair_key(e) not in chosen]
    if not judged:
        raise UsageError(
            f"{len(groups)} pair(s) selected: the {d.familiarization} practice trials need pairs of their own (no "
            "participant judges a video shown with its answer); select more videos or pass --familiarization 0"
        )
    return [e for e in main if pair_key(e) in chosen], judged


def _familiarization(
    rng: random.Random, d: Design, practice: list[dict], held: list[dict], main: list[dict], mine: set
) -> list[dict]:
    """GRASP: practice trials with feedback, plausible and implausible in turn, on the set-aside practice videos
    (practice_split). AVoE: expected videos only, to watch, so people see how things normally behave before they
    rate: the training split's, else the validation split's (never judged), else expected videos of the judged
    ones (this participant's others first)."""
    if d.familiarization == 0:
        return []
    out = []
    if d.protocol == "avoe":
        pool = [e for e in held if _truth(e) == "yes"]
        train = [e for e in pool if e.get("split") == "train"]
        pool = train or pool
        if not pool:
            expected = [e for e in main if _truth(e) == "yes"]
            pool = [e for e in expected if e["id"] not in mine] or expected
        for e in rng.sample(pool, min(d.familiarization, len(pool))):
            out.append(
                {
                    "phase": "practice",
                    "response": "watch",
                    "question": "Familiarization: watch what happens, then continue.",
                    "video_id": e["id"],
                    "video": e["video"],
                    "truth": _truth(e),
                    "entry": entry_fields(e),
                }
            )
        return out
    by_truth = {t: [e for e in practice if _truth(e) == t] for t in ("yes", "no")}
    first = rng.choice(("yes", "no"))
    for i in range(d.familiarization):
        t = first if i % 2 == 0 else ("no" if first == "yes" else "yes")
        pool = by_truth[t] or by_truth["yes"] or by_truth["no"]
        e = pool[(i // 2) % len(pool)]
        out.append({**_main_trial(e, d), "phase": "practice"})
    return out


def deal_order(d: Design, main: list[dict]) -> list[dict]:
    """The judged videos in the order they are dealt out (participant p gets the k videos from p * k on,
    cyclically): pairs in a seeded order, and the first video of every pair before any second one, so that the
    twins of a pair of two lie exactly (number of pairs) apart and k videos up to that number never hold both."""
    rng = random.Random(f"{d.seed}/videos")
    groups = _groups(main)
    keys = sorted(groups)
    rng.shuffle(keys)
    for key in keys:
        rng.shuffle(groups[key])
    depth = max(len(g) for g in groups.values())
    return [groups[k][j] for j in range(depth) for k in keys if j < len(groups[k])]


def _counterbalance(mine: list[dict], seen: dict[str, int]) -> dict[str, int]:
    """Where this participant sees several videos of a pair, put them in the pair's next order (rotating over the
    participants who see that pair whole: `seen` counts them), keeping the slots the shuffle gave. Returns
    video id -> its place in its pair for this participant (1 = shown first)."""
    order_of: dict[str, int] = {}
    for key, members in _groups(mine).items():
        if len(members) < 2:
            continue
        conds = sorted(members, key=lambda e: (str(e.get("condition", "")), e["id"]))
        turn = seen.get(key, 0)
        seen[key] = turn + 1
        want = conds[turn % len(conds) :] + conds[: turn % len(conds)]
        slots = sorted(i for i, e in enumerate(mine) if pair_key(e) == key)
        for i, e in zip(slots, want):
            mine[i] = e
        order_of.update({e["id"]: n + 1 for n, e in enumerate(want)})
    return order_of


def _trial_key(t: dict) -> str:
    """The trial (pair) a study trial's video belongs to."""
    return str((t.get("entry") or {}).get("pair_id") or t.get("video_id"))


def plan(d: Design, main: list[dict], held: list[dict]) -> list[list[dict]]:
    """Every participant's trials, in order (participant number = list index). Deterministic in the design.
    `held`: AVoE train/validation videos (familiarization only). GRASP practice videos are set aside from `main`
    first (practice_split); no participant sees both videos of a pair unless the design allows it (`twins`).
    A constant-stimuli design (constant_stimuli.py) assigns and orders the judged videos by level instead."""
    constant = d.design == cs.NAME
    if constant:
        cs.check_graded(main)
    practice, judged = practice_split(d, main, held)
    if constant:  # practice shows the clearest violation of its trial: the largest level first
        practice = sorted(practice, key=lambda e: -(cs.level_of(e) or 0.0))
        if d.protocol == "avoe" and practice:  # familiarization from the set-aside trials' expected videos
            held = practice
    n = len(judged)
    k = videos_per_participant(d, n)
    order = [] if constant else deal_order(d, judged)
    assigned = cs.assign(judged, d.participants, k, d.seed) if constant else []
    n_pairs = len(_groups(judged))
    seen: dict[str, int] = {}
    plans = []
    for p in range(d.participants):
        rng = random.Random(participant_seed(d.seed, p))
        if constant:
            mine = cs.balanced_order(assigned[p], rng)
            twin_order = cs.twin_order(mine)
        else:
            mine = [order[(p * k + j) % n] for j in range(k)]
            if not d.twins and len(_groups(mine)) < len(mine):
                raise UsageError(
                    f"{k} videos per participant from {n_pairs} pairs: someone would judge both videos of a pair; "
                    f"each participant can see at most {n_pairs} (one per pair): raise --participants or lower "
                    "--per-participant, or pass --twins to show both (order counterbalanced)"
                )
            rng.shuffle(mine)
            twin_order = _counterbalance(mine, seen)
        seq = [_main_trial(e, d) for e in mine]
        for t in seq:
            if t["video_id"] in twin_order:
                t["twin_order"] = twin_order[t["video_id"]]
        for _ in range(d.attention_checks):  # anywhere but the very first main trial
            seq.insert(rng.randint(1, len(seq)) if seq else 0, _attention(rng, d))
        n_rep = round(d.repeat_fraction * len(mine))
        # a repeat comes at least one trial after its first showing, so the last trial is never repeated
        firsts = [t for t in seq[:-1] if t["phase"] == "main"]
        if constant:  # a repeat, too, never comes right before or after a video of its trial: trials in a seeded
            # order, each repeated where such a place exists, until n_rep are placed
            placed = 0
            for t in rng.sample(firsts, len(firsts)):
                at = next(i for i, s in enumerate(seq) if s is t)
                slot = cs.repeat_slot(seq, _trial_key(t), at + 2, rng, _trial_key) if placed < n_rep else None
                if slot is not None:
                    seq.insert(slot, {**t, "phase": "repeat", "repeat_of": t})
                    placed += 1
            firsts = []
        for t in rng.sample(firsts, min(n_rep, len(firsts))):
            at = next(i for i, s in enumerate(seq) if s is t)
            copy = {**t, "phase": "repeat", "repeat_of": t}
            seq.insert(rng.randint(at + 2, len(seq)), copy)
        trials = _familiarization(rng, d, practice, held, judged, {e["id"] for e in mine}) + seq
        catch.insert(trials, d.catch_videos, random.Random(f"{participant_seed(d.seed, p)}/catch"))
        for i, t in enumerate(trials):
            t["position"] = i
        attention_videos(trials, random.Random(f"{participant_seed(d.seed, p)}/attention"))
        if constant:  # an attention check's video, too, never comes next to a video of its trial
            cs.settle(trials, _trial_key)
            for i, t in enumerate(trials):
                t["position"] = i
        for t in trials:  # the repeated trial by position, now that positions exist
            if isinstance(t.get("repeat_of"), dict):
                t["repeat_of"] = t["repeat_of"]["position"]
        plans.append(trials)
    return plans
