"""The constant-stimuli design of a human study (issue 24) on a hand-made sweep (one pair_id: one plausible and
several implausible videos, one per violation level): balanced levels per participant and over participants, never
two videos of one trial back to back, practice from trials nobody judges, the same seed the same plan; and the
report's per-participant and pooled psychometric fits recover a known threshold, with a note (not a traceback)
for a participant who answered too few."""

from __future__ import annotations

import json
import os
import random
from collections import Counter

import pytest

from voebench.errors import UsageError

LEVELS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6]
#: The simulated observers' curve: threshold 0.3 (m), slope 20, false alarms 0.1, lapses 0.02.
TRUE = {"threshold": 0.3, "slope": 20.0, "guess": 0.1, "lapse": 0.02}


def make_sweep_set(root: str, tests: dict[str, int], levels=LEVELS, suite: str = "grasp-l2", split=None) -> str:
    """A sweep as the generator writes it (docs/psychometrics.md, issue 24): per trial `00003-plausible` (level 0)
        and `00003-implausible-<rank>` per level, all with the trial's pair_id, `sweep_levels`, `pair_conditions`,
        `violation_level` and `violation_unit`; a small distinct stand-in file per video (a study hashes the videos it
    shows; nothing here decodes them)."""
    from contract_fixtures import complete_entry, write_dataset

    from voebench.contract import manifest as mf

    os.makedirs(root, exist_ok=True)
    swept = [0.0, *levels]
    conditions = ["plausible", *[f"implausible-{r}" for r in range(1, len(swept))]]
    entries = []
    for n, (test, trials) in enumerate(sorted(tests.items())):
        for i in range(trials):
            for rank, level in enumerate(swept):
                cond = "implausible" if rank else "plausible"
                stem = f"{i:05d}-{cond}" + (f"-{rank}" if rank else "")
                os.makedirs(os.path.join(root, suite, test), exist_ok=True)
                with open(os.path.join(root, suite, test, stem + ".mp4"), "wb") as f:
                    f.write(f"stand-in video {suite}/{test}/{stem}\n".encode() * 4)
                e = {
                    "id": f"{suite}/{test}/{stem}",
                    "suite": suite,
                    "test": test,
                    "index": i,
                    "condition": cond,
                    "pair_id": f"{suite}/{test}/{i:05d}",
                    "video": f"{suite}/{test}/{stem}.mp4",
                    "states": f"{suite}/{test}/{stem}.h5",
                    "n_frames": 8,
                    "fps": 8,
                    "width": 64,
                    "height": 48,
                    "test_number": n + 1,
                    "violation_level": level,
                    "violation_unit": "m",
                    "sweep_levels": swept,
                    "pair_conditions": conditions,
                    "prompts": [
                        {
                            "kind": "plausibility",
                            "text": "Is the motion of the ball plausible? Answer only with yes or no.",
                            "answer": "no" if rank else "yes",
                        }
                    ],
                }
                if rank:
                    e["sweep_rank"] = rank
                if split:
                    e["split"] = split
                entries.append(complete_entry(e))
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    write_dataset(root)
    return root


def _plan(root, protocol, participants, **given):
    from voebench.evaluate.humans import design
    from voebench.evaluate.tasks import load_manifest

    d = design.default_design(protocol, participants, design="constant-stimuli", **given)
    main, held = design.eligible(load_manifest(root), d)
    return main, design.plan(d, main, held)


def _videos(p: list[dict]) -> list[dict]:
    """The judged videos a participant sees, in order (main and repeats; attention checks show none of the set)."""
    return [t for t in p if t["phase"] in ("main", "repeat")]


def _trial(t: dict) -> str:
    return t["entry"]["pair_id"]


def _assert_never_back_to_back(plans):
    """No two videos of one trial in a row after practice: judged ones, repeats, and attention checks (which re-show
    a video seen earlier, or a catch video made from one)."""
    for p in plans:
        vids = [t for t in p if t["phase"] != "practice" and t.get("video")]
        clashes = [
            (a["video_id"], b["video_id"])
            for a, b in zip(vids, vids[1:])
            if a["entry"]["pair_id"] == b["entry"]["pair_id"]
        ]
        assert clashes == []


@pytest.mark.parametrize(
    "given",
    [
        {},
        {"per_participant": 16},
        {"per_participant": 40, "repeat_fraction": 0.2},
        {"per_participant": 9},
        {"per_participant": 30, "familiarization": 0, "attention_checks": 4, "catch_videos": 3},
    ],
    ids=["everything", "k16", "k40-repeats", "k9", "checks-from-judged-videos"],
)
def test_levels_balanced_and_no_trial_back_to_back(tmp_path, given):
    root = make_sweep_set(str(tmp_path / "set"), {"t08": 12, "t09": 8})
    main, plans = _plan(root, "grasp", 14, **given)
    _assert_never_back_to_back(plans)
    practice = {t["entry"]["pair_id"] for p in plans for t in p if t["phase"] == "practice"}
    judged = Counter(t["video_id"] for p in plans for t in p if t["phase"] == "main")
    assert not practice & {t["entry"]["pair_id"] for p in plans for t in _videos(p)}
    assert bool(practice) == (given.get("familiarization") != 0)
    for p in plans:
        main_t = [t for t in p if t["phase"] == "main"]
        assert len({t["video_id"] for t in main_t}) == len(main_t)  # no video twice (repeats aside)
        per_level = Counter((t["entry"]["test"], t["entry"]["violation_level"]) for t in main_t)
        for test in ("t08", "t09"):  # every level of a test about equally often, per participant
            counts = [per_level.get((test, x), 0) for x in (0.0, *LEVELS)]
            assert max(counts) - min(counts) <= 1, (test, per_level)
        for t in main_t:
            if t["entry"]["pair_id"] in {u["entry"]["pair_id"] for u in main_t if u is not t}:
                assert t["twin_order"] >= 1  # a trial seen twice or more: each video's place recorded
        if practice:  # one plausible and the clearest violation (the largest level), of a trial nobody judges
            assert [t["phase"] for t in p[:2]] == ["practice", "practice"]
            assert sorted((t["truth"], t["entry"]["violation_level"]) for t in p[:2]) == [("no", 0.6), ("yes", 0.0)]
        assert sum(t["phase"] == "attention" for t in p) == given.get("attention_checks", 2) + given.get(
            "catch_videos", 0
        )
    # across participants each (trial, level) is judged about equally often
    in_play = {e["id"] for e in main if e["pair_id"] not in practice}
    counts = [judged.get(v, 0) for v in in_play]
    assert max(counts) - min(counts) <= 1, Counter(counts)
    if "per_participant" not in given:
        assert set(counts) == {14}  # everyone judges every video
    if "repeat_fraction" in given:
        assert all(sum(t["phase"] == "repeat" for t in p) == 8 for p in plans)  # 20% of 40, placed clear of twins


def test_same_seed_same_plan(tmp_path):
    root = make_sweep_set(str(tmp_path / "set"), {"t08": 10})
    _, a = _plan(root, "grasp", 6, per_participant=20)
    _, b = _plan(root, "grasp", 6, per_participant=20)
    _, c = _plan(root, "grasp", 6, per_participant=20, seed=1)
    assert a == b
    assert a != c
    assert a[0] != a[1]  # participants get their own orders


def test_avoe_familiarization_from_trials_set_aside(tmp_path):
    """AVoE familiarization shows expected videos; without training videos they come from whole trials that nobody
    judges (the standard design would show expected videos of the judged trials)."""
    root = make_sweep_set(str(tmp_path / "set"), {"A1": 8}, suite="avoe", split="test")
    main, plans = _plan(root, "avoe", 4, repeat_fraction=0.25)
    _assert_never_back_to_back(plans)
    for p in plans:
        fam = [t for t in p if t["phase"] == "practice"]
        assert len(fam) == 2 and all(t["truth"] == "yes" and t["response"] == "watch" for t in fam)
        fam_trials = {t["entry"]["pair_id"] for t in fam}
        assert not fam_trials & {t["entry"]["pair_id"] for q in plans for t in _videos(q)}
        assert len(_videos(p)) == (8 - 2) * 7 + round(0.25 * 6 * 7)


def test_refusals_and_auto_design(tmp_path):
    from conftest import voebench
    from humans_fixtures import make_plausibility_set

    plain = make_plausibility_set(str(tmp_path / "plain"), {"t01": 4}, videos=True)
    with pytest.raises(UsageError, match="no video of the selection has a violation level"):
        _plan(plain, "grasp", 3)
    one = make_sweep_set(str(tmp_path / "one"), {"t08": 2})  # one trial left after practice: 7 videos of one trial
    with pytest.raises(UsageError, match="cannot be ordered without two back to back"):
        _plan(one, "grasp", 2)
    sweep = make_sweep_set(str(tmp_path / "sweep"), {"t08": 6})
    # auto: a sweep gets constant stimuli, a plain set the standard design; --design constant-stimuli on a plain set
    # is refused in one line
    for set_dir, want in ((sweep, "constant-stimuli"), (plain, "standard")):
        study = str(tmp_path / f"study-{want}")
        voebench(
            "humans",
            "serve",
            set_dir,
            "--study",
            study,
            "--protocol",
            "grasp",
            "--participants",
            "3",
            "--create-only",
            "--twins",
        )
        from voebench.evaluate.humans.store import Study

        s = Study(study)
        assert s.meta["design"]["design"] == want
        s.close()
    bad = voebench(
        "humans",
        "serve",
        plain,
        "--study",
        str(tmp_path / "bad"),
        "--protocol",
        "grasp",
        "--participants",
        "3",
        "--create-only",
        "--design",
        "constant-stimuli",
        check=False,
    )
    assert bad.returncode == 2 and len(bad.stderr.strip().splitlines()) == 1, bad.stderr
    assert not os.path.exists(tmp_path / "bad" / "study.sqlite3")
    help_ = voebench("humans", "serve", "--help").stdout
    assert "constant-stimuli" in help_


def _observer(level: float, rng: random.Random) -> str:
    """'no' (noticed) with the probability of the true curve at `level`."""
    from voebench.evaluate.psychometrics import psi

    p = float(psi(level, TRUE["threshold"], TRUE["slope"], TRUE["guess"], TRUE["lapse"]))
    return "no" if rng.random() < p else "yes"


def test_report_fits_per_participant_and_pooled(tmp_path, monkeypatch):
    """Simulated observers with a known threshold answer through the study's store; the exported run's report
    recovers the threshold pooled and per participant, and a participant who stopped early gets a note."""
    from voebench.evaluate import report
    from voebench.evaluate.humans import curves, design, export, study
    from voebench.evaluate.humans.store import Study

    monkeypatch.setattr(curves, "POOLED_BOOT", 300)  # fewer draws than the report's defaults: a fast test
    monkeypatch.setattr(curves, "POOLED_GOF", 0)
    monkeypatch.setattr(curves, "PARTICIPANT_BOOT", 100)
    root = make_sweep_set(str(tmp_path / "set"), {"t08": 13})
    d = design.default_design(
        "grasp", 7, design="constant-stimuli", attention_checks=1, min_viewing="off"
    )  # the simulated panel answers at once
    study_dir = str(tmp_path / "study")
    study.create(root, study_dir, d).close()
    s = Study(study_dir)
    trials: dict[int, list[dict]] = {}
    for a in s.answers():
        trials.setdefault(a["participant"], []).append(a["trial"])
    for number, token in s.tokens():
        rng = random.Random(number)
        s.consent(token, True)
        s.instructions(token)
        for n, t in enumerate(trials[number]):
            if number == 6 and n >= 9:  # P007 stops after 9 trials (2 practice, 7 judged or checks)
                break
            if t["phase"] == "attention":
                value = t["expect"]
            elif t["phase"] == "practice":
                value = t["truth"]
            else:
                value = _observer(t["entry"]["violation_level"], rng)
            s.answer(token, t["position"], value, 1000, None)
    s.close()
    run_dir = str(tmp_path / "run")
    export.export(study_dir, run_dir)
    samples = [json.loads(x) for x in open(os.path.join(run_dir, "samples.jsonl"))]
    assert {s_["violation_level"] for s_ in samples} == {0.0, *LEVELS}
    res = report.write_report(run_dir)
    (t08,) = res["humans"]["psychometric"]["tests"]
    pooled = t08["pooled"]
    assert pooled["n_trials"] == 12 and pooled["threshold"]["point"] is not None
    assert abs(pooled["threshold"]["point"] - TRUE["threshold"]) < 0.06
    lo, hi = pooled["threshold"]["lo"], pooled["threshold"]["hi"]
    assert lo is not None and hi is not None and lo <= TRUE["threshold"] <= hi and hi - lo < 0.15
    assert "participants are not resampled" in t08["pooled_resampled"]
    assert t08["unit"] == "m"  # samples carry no unit: read from the set the run names
    cr = t08["crossed"]  # participants and trials resampled: wider, and it holds the truth too
    assert cr["draws"] == 300 and cr["lo"] is not None and cr["hi"] is not None
    assert cr["lo"] <= TRUE["threshold"] <= cr["hi"] and cr["hi"] - cr["lo"] >= hi - lo
    per = {p["participant"]: p for p in t08["participants"]}
    assert per["P007"]["fit"] is None and per["P007"]["note"].startswith("too few answers to fit")
    fitted = [p["fit"]["threshold"]["point"] for w, p in per.items() if w != "P007"]
    assert len(fitted) == 6 and all(x is not None and abs(x - TRUE["threshold"]) < 0.12 for x in fitted), fitted
    assert abs(t08["participant_thresholds"]["median"] - TRUE["threshold"]) < 0.06
    md = open(os.path.join(run_dir, "report.md")).read()
    assert "### Psychometric curves (constant stimuli)" in md and "#### grasp-l2 / t08 (m)" in md
    assert "| P007 |" in md and "too few answers to fit" in md
    assert "participants (7) x trials (12) resampled (crossed)" in md
    levels = [r["level"] for r in t08["levels"]]
    assert levels == [0.0, *LEVELS]
    assert t08["levels"][0]["proportion"] < 0.3 < 0.8 < t08["levels"][-1]["proportion"]


def test_no_levels_no_curves_and_levels_from_the_set(tmp_path):
    """A panel of an ungraded set: no psychometric section, and the report's markdown is unchanged by it. Records
    without levels (a study made before its entries kept them) get them from the set the run names."""
    from voebench.evaluate.humans import curves

    records = [{"suite": "s", "test": "t", "video_id": "v", "parsed": "no", "valid": True, "participant": "P001"}]
    assert curves.curves(records) is None
    assert curves.curves(records, set_root=str(tmp_path / "gone")) is None  # an absent set: no curves, no error
    assert curves.markdown(None) == ""
    root = make_sweep_set(str(tmp_path / "set"), {"t08": 4})
    rng = random.Random(0)
    stems = ["plausible", *[f"implausible-{r}" for r in range(1, 7)]]
    records = [
        {"suite": "grasp-l2", "test": "t08", "video_id": f"grasp-l2/t08/{i:05d}-{stems[r]}",
         "pair_id": f"grasp-l2/t08/{i:05d}", "parsed": _observer(([0.0, *LEVELS])[r], rng), "valid": True,
         "participant": f"P{p:03d}"}
        for p in range(3) for i in range(4) for r in range(7)
    ]  # fmt: skip
    c = curves.curves(records, pooled_boot=20, participant_boot=0, gof=0, set_root=root)
    assert c is not None
    (t,) = c["tests"]
    assert t["unit"] == "m" and [r["level"] for r in t["levels"]] == [0.0, *LEVELS] and t["answers"] == 84
