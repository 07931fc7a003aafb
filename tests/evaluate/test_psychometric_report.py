"""The psychometric report (issue 24): responses per test from a model run, a world-model run with several violated
videos per pair, and human answers; the numbers against hand counts; the fit on a known fake curve; degenerate and
bad input. Sets are written by hand (manifest only, `--strategy text`: no video is decoded)."""

from __future__ import annotations

import json
import os
from collections import Counter

import numpy as np
import pytest
from contract_fixtures import complete_entry, write_dataset

from voebench.cli import main
from voebench.contract import manifest as mf
from voebench.evaluate.psychometrics import report as psych_report
from voebench.evaluate.psychometrics import responses as R
from voebench.evaluate.psychometrics import simulate
from voebench.evaluate.surprise import metrics

SUITE = "grasp-l2"
GRADED, BINARY = "t08_inertia_bounce", "t01_binary"
LEVELS = (0.0, 0.2, 0.4, 0.6, 0.8, 1.0)
QUESTION = "Is the trajectory of the ball plausible? Answer only with yes or no."


def make_graded_set(root: str, trials: int = 12, levels=LEVELS, binary: bool = True, graded: bool = True) -> str:
    """A swept test (per trial: the plausible video at level 0 and one violated video per nonzero level, one
    pair_id, stems -plausible, -implausible-1, ...; the sweep contract) and a binary test (no levels)."""
    os.makedirs(root, exist_ok=True)
    entries = []
    nonzero = [x for x in levels if x > 0]
    for test, has_levels in ((GRADED, True), (BINARY, False)):
        if (has_levels and not graded) or (not has_levels and not binary):
            continue
        swept = has_levels and len(nonzero) > 1
        conds = ["plausible"] + ([f"implausible-{k + 1}" for k in range(len(nonzero))] if swept else ["implausible"])
        for i in range(trials):
            pid = f"{SUITE}/{test}/{i:05d}"
            videos = [("plausible", None, 0.0)] + [
                ("implausible", k + 1 if swept else None, x) for k, x in enumerate(nonzero if has_levels else [None])
            ]
            for cond, rank, x in videos:
                stem = f"{i:05d}-{cond}" + (f"-{rank}" if rank else "")
                e = {
                    "id": f"{SUITE}/{test}/{stem}",
                    "suite": SUITE,
                    "test": test,
                    "index": i,
                    "condition": cond,
                    "pair_id": pid,
                    "pair_conditions": conds,
                    "states": f"{SUITE}/{test}/{stem}.h5",
                    "n_frames": 8,
                    "fps": 8,
                    "width": 64,
                    "height": 48,
                    "test_number": 8 if has_levels else 1,
                    "description": f"A ball bounces ({stem}).",
                    "prompts": [{"kind": "plausibility", "text": QUESTION, "answer": "yes" if x == 0.0 else "no"}],
                }
                if has_levels:
                    e.update(violation_level=x, violation_unit="m")
                    if swept:
                        e["sweep_levels"] = list(levels)
                        if rank:
                            e["sweep_rank"] = rank
                entries.append(complete_entry(e))
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    write_dataset(root)
    return root


def entries_of(root: str) -> list[dict]:
    return mf.read_manifest(os.path.join(root, mf.NAME))


def evaluate(root: str, out: str, model: str, repeats: int = 1) -> str:
    rc = main(
        [
            "evaluate",
            root,
            "--model",
            model,
            "--strategy",
            "text",
            "--repeats",
            str(repeats),
            "--out",
            out,
            "--no-progress",
        ]
    )
    assert rc in (0, 1)  # 1: the binary test's samples have no level, which fake:psychometric refuses (recorded)
    return out


def read_jsonl(path: str) -> list[dict]:
    with open(path, encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def per_level(rows) -> dict[float, tuple[int, int]]:
    """level -> (responses, noticed)."""
    n: Counter = Counter()
    k: Counter = Counter()
    for r in rows:
        n[r["level"]] += 1
        k[r["level"]] += bool(r["noticed"])
    return {x: (n[x], k[x]) for x in sorted(n)}


FAKE = "fake:psychometric:threshold=0.4,slope=12,guess=0.1,lapse=0"


@pytest.fixture(scope="module")
def runs(tmp_path_factory) -> dict[str, str]:
    """The set, a fake:psychometric run (2 repeats), a world model (several violated videos per pair) and a
    simulated human panel whose records carry no level (looked up in the set)."""
    d = tmp_path_factory.mktemp("psy")
    root = make_graded_set(str(d / "set"), trials=16)
    entries = entries_of(root)
    return {
        "set": root,
        "model": evaluate(root, str(d / "model"), FAKE, repeats=2),
        "world": simulate.write_surprise_run(root, entries, str(d / "world"), gain=1.0),
        "humans": simulate.write_human_panel(root, entries, str(d / "humans"), participants=4, with_levels=False),
        "tmp": str(d),
    }


# -- pairing of a surprise run ----------------------------------------------------------------------------------


def _srec(pid: str, stem: str, plausible: bool, score: float, level: float | None) -> dict:
    return {
        "id": f"{pid}-{stem}",
        "suite": "s",
        "test": "t",
        "pair_id": pid,
        "plausible": plausible,
        "condition": "plausible" if plausible else "implausible",
        "violation_level": level,
        "onset": 5,
        "window_end": [2, 4, 6, 8],
        "surprise": {"2": [score] * 4},
    }


def test_a_swept_pair_gives_one_comparison_per_violated_video():
    recs = []
    for i in range(4):  # plausible at i; violated -1 (0.2): i + 0.5, -2 (0.5): i - 1, -10 (1.0): i + 3
        pid = f"p{i}"
        recs += [
            _srec(pid, "implausible-10", False, i + 3.0, 1.0),
            _srec(pid, "plausible", True, float(i), 0.0),
            _srec(pid, "implausible-2", False, i - 1.0, 0.5),
            _srec(pid, "implausible-1", False, i + 0.5, 0.2),
        ]
    comps = metrics.comparisons(recs)
    assert len(comps) == 12
    assert [v["id"] for _p, v in comps[:3]] == ["p0-implausible-1", "p0-implausible-2", "p0-implausible-10"]
    assert all(p["id"] == f"{v['pair_id']}-plausible" for p, v in comps)
    s = metrics.summarize(recs, [2], fixed=2, n_boot=50)
    t = s["tests"][0]
    assert (s["pairs"], s["comparisons"], t["pairs"], t["comparisons"]) == (4, 12, 4, 12)
    assert t["fixed"]["avg"]["relative"] == pytest.approx(8 / 12)  # two of three levels beat the twin, per pair
    assert t["fixed"]["avg"]["interval"]["clusters"] == {"pairs": 4}  # a trial's comparisons resampled together
    # AUROC: 12 violated scores against the 4 plausible ones, each counted once
    pos = [i + d for i in range(4) for d in (0.5, -1.0, 3.0)]
    assert t["fixed"]["avg"]["auroc"] == pytest.approx(metrics.auroc(pos, [0.0, 1.0, 2.0, 3.0]))
    # absolute accuracy: each pair's threshold from the other pairs' plausible videos only (quantile 0.9)
    ok_p, ok_v = [], []
    for i in range(4):
        thr = float(np.quantile([j for j in range(4) if j != i], 0.9))
        ok_p.append(i <= thr)
        ok_v += [i + d > thr for d in (0.5, -1.0, 3.0)]
    assert t["fixed"]["avg"]["absolute"] == pytest.approx(0.5 * (np.mean(ok_p) + np.mean(ok_v)))
    assert metrics.complete_pairs(recs)["p0"][1]["id"] == "p0-implausible-10"  # the largest level represents it


def test_two_video_pairs_pair_as_before():
    recs = [
        _srec(f"p{i}", c, c == "plausible", s, None)
        for i in range(5)
        for c, s in (("plausible", 1.0), ("implausible", 1.0 + (i - 1)))
    ]
    comps = metrics.comparisons(recs)
    assert len(comps) == 5 and metrics.complete_pairs(recs) == {p["pair_id"]: (p, v) for p, v in comps}
    t = metrics.summarize(recs, [2], fixed=2, n_boot=50)["tests"][0]
    assert t["pairs"] == t["comparisons"] == 5
    assert t["fixed"]["avg"]["relative"] == pytest.approx((3 + 0.5) / 5)  # i = 2, 3, 4 above; i = 1 a tie


# -- responses --------------------------------------------------------------------------------------------------


def test_model_run_responses_equal_hand_counts(runs):
    sc = R.load_run(runs["model"])
    assert sc.measure == R.YES_NO and sc.guess == "level0"
    assert sc.ungraded == [(SUITE, BINARY)] and list(sc.tests) == [(SUITE, GRADED)]
    tr = sc.tests[(SUITE, GRADED)]
    assert tr.unit == "m" and not tr.left_out
    recs = [r for r in read_jsonl(os.path.join(runs["model"], "samples.jsonl")) if r["test"] == GRADED]
    hand = {}
    for x in LEVELS:
        at = [r for r in recs if r["violation_level"] == x]
        hand[x] = (len(at), sum(r["parsed"] == "no" for r in at))
    assert per_level(tr.rows) == hand
    assert all(n == 32 for n, _k in hand.values())  # 16 trials x 2 repeats
    assert {r["trial"] for r in tr.rows} == {f"{SUITE}/{GRADED}/{i:05d}" for i in range(16)}


def test_world_model_responses_one_per_violated_video(runs):
    sc = R.load_run(runs["world"])
    assert sc.measure == R.RELATIVE and sc.guess == 0.5
    tr = sc.tests[(SUITE, GRADED)]
    recs = read_jsonl(os.path.join(runs["world"], "surprise.jsonl"))
    by = {r["id"]: r for r in recs}
    hand: dict[float, list[bool]] = {}
    for r in recs:
        if r["test"] == GRADED and not r["plausible"]:
            twin = by[f"{r['pair_id']}-plausible"]
            hand.setdefault(r["violation_level"], []).append(
                np.mean(r["surprise"]["8"]) > np.mean(twin["surprise"]["8"])
            )
    assert per_level(tr.rows) == {x: (len(v), sum(v)) for x, v in sorted(hand.items())}
    assert sorted(hand) == list(LEVELS[1:]) and all(len(v) == 16 for v in hand.values())
    # the levels come from the set when the records lack them (runs written before the field)
    bare = os.path.join(runs["tmp"], "world-bare")
    os.makedirs(bare)
    with open(os.path.join(bare, "surprise.jsonl"), "w") as fh:
        fh.writelines(json.dumps({k: v for k, v in r.items() if k != "violation_level"}) + "\n" for r in recs)
    with open(os.path.join(runs["world"], "run.json")) as src, open(os.path.join(bare, "run.json"), "w") as dst:
        dst.write(src.read())
    assert per_level(R.load_run(bare).tests[(SUITE, GRADED)].rows) == per_level(tr.rows)


def test_surprise_ties_and_missing_twins_are_left_out_and_counted():
    recs = [
        _srec("p0", "plausible", True, 1.0, 0.0),
        _srec("p0", "implausible-1", False, 1.0, 0.5),
        _srec("p0", "implausible-2", False, 2.0, 1.0),
        _srec("p1", "implausible-1", False, 3.0, 0.5),
    ]
    tr = R.from_surprise_records(recs, "wm", context=2).tests[("s", "t")]
    assert per_level(tr.rows) == {1.0: (1, 1)}
    assert tr.left_out == Counter({R.TIE: 1, R.NO_TWIN: 1})


def test_human_answer_rows(runs):
    levels, note = R.manifest_levels(runs["set"])
    assert note is None and levels[f"{SUITE}/{GRADED}/00003-implausible-2"] == (0.4, "m")
    base = {
        "suite": SUITE,
        "test": GRADED,
        "pair_id": f"{SUITE}/{GRADED}/00003",
        "phase": "main",
        "answer": "x",
        "excluded": False,
        "video_error": None,
        "repeat_of": None,
    }
    vid = f"{SUITE}/{GRADED}/00003-implausible-2"
    rows = [
        {**base, "participant": "P001", "video_id": vid, "parsed": "no"},
        {**base, "participant": "P002", "video_id": vid, "parsed": "yes"},
        {**base, "participant": "P003", "video_id": vid, "parsed": "middle"},
        {**base, "participant": "P004", "video_id": vid, "parsed": None, "valid": False},
        {**base, "participant": "P005", "video_id": vid, "parsed": "no", "excluded": True},
        {**base, "participant": "P001", "video_id": vid, "parsed": "no", "phase": "practice"},
        {**base, "participant": "P001", "video_id": vid, "parsed": "no", "repeat_of": 3},
        {**base, "participant": "P006", "video_id": vid, "parsed": "no", "video_error": "MEDIA_ERR_DECODE"},
        {**base, "participant": "P002", "video_id": f"{SUITE}/{GRADED}/00003-plausible", "parsed": "no"},
        {
            **base,
            "participant": "P002",
            "video_id": f"{SUITE}/{BINARY}/00003-plausible",
            "test": BINARY,
            "parsed": "no",
        },
    ]
    sc = R.from_human_answers(rows, levels)
    tr = sc.tests[(SUITE, GRADED)]
    assert sorted((r["participant"], r["level"], r["noticed"]) for r in tr.rows) == [
        ("P001", 0.4, True),
        ("P002", 0.0, True),
        ("P002", 0.4, False),
    ]
    assert tr.left_out == Counter({R.MIDDLE: 1, R.UNPARSED: 1})
    assert sc.ungraded == [(SUITE, BINARY)]


# -- the report -------------------------------------------------------------------------------------------------


@pytest.mark.heavy
def test_report_command_puts_every_scorer_on_one_plot(runs, capsys):
    out = os.path.join(runs["tmp"], "psy-report")
    rc = main(
        ["report", runs["model"], runs["world"], runs["humans"], "--psychometric", out, "--psychometric-boot", "100"]
    )
    assert rc == 0
    stdout = capsys.readouterr().out
    assert f"Skipped (no violation_level: binary tests or a set without levels): {SUITE}/{BINARY}" in stdout
    res = json.load(open(os.path.join(out, psych_report.RESULTS)))
    (test,) = res["tests"]
    assert (test["test"], test["unit"], test["figure"]) == (GRADED, "m", f"{SUITE}__{GRADED}.png")
    assert os.path.getsize(os.path.join(out, test["figure"])) > 10_000
    assert [s["measure"] for s in test["scorers"]] == [R.YES_NO, R.RELATIVE, R.YES_NO]
    # the table's proportions are the hand counts of each run
    for s, run in zip(test["scorers"], ("model", "world", "humans")):
        hand = per_level(R.load_run(runs[run]).tests[(SUITE, GRADED)].rows)
        assert {r["level"]: (r["n"], r["noticed"]) for r in s["levels"]} == hand
        for r in s["levels"]:
            assert r["proportion"] == pytest.approx(r["noticed"] / r["n"])
            assert r["lo"] <= r["proportion"] <= r["hi"]
    model, world, humans = test["scorers"]
    assert model["levels"][0]["trials"] == 16 and model["levels"][0]["n"] == 32
    # the fake's threshold (F = 1/2 at 0.4) is recovered roughly, inside its interval
    thr = model["fit"]["threshold"]
    assert thr["lo"] <= 0.4 <= thr["hi"] and abs(thr["point"] - 0.4) < 0.1
    assert world["fit"]["guess"] == 0.5 and world["fit"]["guess_mode"] == "fixed"
    assert humans["responses"] == 4 * 16 * len(LEVELS)
    md = open(os.path.join(out, psych_report.MARKDOWN)).read()
    assert md == stdout[stdout.index("# Psychometric report") :]
    assert f"![{GRADED}]({SUITE}__{GRADED}.png)" in md and "| level (m) |" in md


def test_a_constant_answerer_is_flat(runs):
    run = evaluate(runs["set"], os.path.join(runs["tmp"], "yes"), "fake:yes")
    rep = psych_report.build([R.load_run(run)], n_boot=50, n_gof=0)
    f = rep["tests"][0]["scorers"][0]["fit"]
    assert f["threshold"]["point"] is None and f["flat"] and any(n.startswith("flat") for n in f["notes"])
    assert {r["level"]: r["noticed"] for r in rep["tests"][0]["scorers"][0]["levels"]} == dict.fromkeys(LEVELS, 0)


def test_a_world_model_that_sees_nothing_is_flat(tmp_path):
    root = str(tmp_path / "set")
    entries = simulate.write_graded_set(root, {GRADED: "m"}, list(LEVELS), trials=16)
    run = simulate.write_surprise_run(root, entries, str(tmp_path / "coin"), gain=0.0)  # surprise ignores the level
    f = psych_report.build([R.load_run(run)], n_boot=100, n_gof=0)["tests"][0]["scorers"][0]["fit"]
    assert f["flat"] and f["threshold"]["point"] is None and f["threshold"]["hi"] is None
    assert f["guess"] == 0.5 and f["n_responses"] == 16 * (len(LEVELS) - 1)


def _model_run(path: str, records: list[dict]) -> str:
    os.makedirs(path, exist_ok=True)
    with open(os.path.join(path, "samples.jsonl"), "w") as fh:
        fh.writelines(json.dumps(r) + "\n" for r in records)
    with open(os.path.join(path, "run.json"), "w") as fh:
        json.dump({"model": "hand-made"}, fh)
    return path


def _answer(i: int, level: float, parsed: str | None) -> dict:
    return {
        "sample_id": f"v{i}-{level}#plausibility",
        "video_id": f"v{i}-{level}",
        "suite": SUITE,
        "test": GRADED,
        "kind": "plausibility",
        "pair_id": f"trial{i}",
        "violation_level": level,
        "parsed": parsed,
        "valid": parsed is not None,
        "correct": (parsed == "no") == (level > 0),
        "response": parsed or "hmm",
        "strategy": "zero-shot",
        "repeat": 0,
        "truth": "no" if level > 0 else "yes",
        "polarity": "negative" if level > 0 else "positive",
        "condition": "plausible" if level == 0 else "implausible",
    }


def test_degenerate_sets_give_a_report(tmp_path, capsys):
    unparsed = _model_run(str(tmp_path / "unparsed"), [_answer(i, x, None) for i in range(3) for x in (0.0, 0.5)])
    one_trial = _model_run(str(tmp_path / "one"), [_answer(0, x, "no" if x > 0.3 else "yes") for x in LEVELS])
    pairs = make_graded_set(str(tmp_path / "pairs"), trials=4, levels=(0.0, 0.5), binary=False)  # not swept
    one_level = simulate.write_surprise_run(pairs, entries_of(pairs), str(tmp_path / "level"))  # relative: 0.5 only
    rep = psych_report.write(
        [R.load_run(p) for p in (unparsed, one_trial, one_level)], str(tmp_path / "out"), n_boot=20, n_gof=0
    )
    a, b, c = rep["tests"][0]["scorers"]
    assert a["left_out"] == {R.UNPARSED: 6} and a["responses"] == 0 and a["fit"]["notes"] == ["no data: nothing to fit"]
    assert "one trial: nothing to resample, no interval" in b["fit"]["notes"]
    assert c["fit"]["notes"] == ["one level tested (0.5): a curve needs at least two levels"]
    assert "left out: unparsed answer (6)" in rep["markdown"] and os.path.isfile(
        tmp_path / "out" / rep["tests"][0]["figure"]
    )
    # through the command: the same three runs, exit 0
    assert (
        main(
            [
                "report",
                unparsed,
                one_trial,
                one_level,
                "--psychometric",
                str(tmp_path / "out2"),
                "--psychometric-boot",
                "10",
            ]
        )
        == 0
    )


def test_a_run_without_graded_videos_says_so(tmp_path, capsys):
    root = make_graded_set(str(tmp_path / "set"), trials=2, graded=False)
    run = evaluate(root, str(tmp_path / "run"), "fake:random")
    os.makedirs(tmp_path / "out")
    (tmp_path / "out" / psych_report.RESULTS).write_text("{}")  # an earlier report's folder: reused,
    (tmp_path / "out" / f"{SUITE}__{GRADED}.png").write_bytes(b"old")  # its figure of a test not in this one removed
    assert main(["report", run, "--psychometric", str(tmp_path / "out")]) == 0
    md = open(tmp_path / "out" / psych_report.MARKDOWN).read()
    assert "**No graded videos" in md and f"{SUITE}/{BINARY}" in md
    assert not [n for n in os.listdir(tmp_path / "out") if n.endswith(".png")]


def test_a_foreign_folder_is_refused_before_anything_is_written(runs, tmp_path, capsys):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    before = os.path.getmtime(os.path.join(runs["model"], "report.md"))
    assert main(["report", runs["model"], "--psychometric", str(out)]) == 2
    assert "--psychometric" in capsys.readouterr().err
    assert os.listdir(out) == ["notes.txt"]
    assert os.path.getmtime(os.path.join(runs["model"], "report.md")) == before


# -- a real world-model run of a swept set ------------------------------------------------------------------------

N_FRAMES, ONSET, SIZE = 16, 10, 32


def _swept_video_set(root: str, trials: int, levels: tuple[float, ...]) -> str:
    """Lossless clips of a square moving right; at the onset the violated videos' square jumps by 20 px x level."""
    import imageio.v2 as iio

    test = "t08_teleport"
    os.makedirs(os.path.join(root, SUITE, test), exist_ok=True)
    conds = ["plausible"] + [f"implausible-{k}" for k in range(1, len(levels))]
    entries = []
    for i in range(trials):
        base = np.random.default_rng(i).integers(0, 200, 3).astype(np.uint8)
        for rank, level in enumerate(levels):
            cond = "plausible" if rank == 0 else "implausible"
            stem = f"{i:05d}-{cond}" + (f"-{rank}" if rank else "")
            rel = f"{SUITE}/{test}/{stem}"
            w = iio.get_writer(
                os.path.join(root, rel + ".mp4"),
                format="FFMPEG",
                fps=10,
                codec="libx264rgb",
                macro_block_size=1,
                output_params=["-qp", "0"],
                ffmpeg_log_level="error",
            )
            for t in range(N_FRAMES):
                f = np.zeros((SIZE, SIZE, 3), np.uint8) + base
                x = (t + (int(20 * level) if t >= ONSET else 0)) % (SIZE - 6)
                f[10:16, x : x + 6] = 255
                w.append_data(f)
            w.close()
            e = {
                "id": rel,
                "suite": SUITE,
                "test": test,
                "index": i,
                "condition": cond,
                "pair_id": f"{SUITE}/{test}/{i:05d}",
                "video": rel + ".mp4",
                "states": rel + ".h5",
                "n_frames": N_FRAMES,
                "fps": 10.0,
                "width": SIZE,
                "height": SIZE,
                "pair_conditions": conds,
                "violation_level": level,
                "violation_unit": "m",
                "sweep_levels": list(levels),
                "violation": None
                if rank == 0
                else {
                    "principles": ["continuity"],
                    "kind": "teleport",
                    "object": "ball",
                    "first_frame": ONSET,
                    "last_frame": ONSET,
                    "hidden": False,
                    "level": level,
                    "unit": "m",
                },
            }
            if rank:
                e["sweep_rank"] = rank
            entries.append(complete_entry(e))
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    write_dataset(root)
    return root


def test_a_world_model_run_of_a_swept_set(tmp_path, capsys):
    pytest.importorskip("torch")
    pytest.importorskip("transformers")
    levels = (0.0, 0.25, 0.5, 1.0)
    root = _swept_video_set(str(tmp_path / "set"), trials=3, levels=levels)
    run = str(tmp_path / "run")
    assert (
        main(
            [
                "evaluate",
                root,
                "--model",
                "vjepa2-random:tiny",
                "--out",
                run,
                "--no-progress",
                "--device",
                "cpu",
                "--window",
                "8",
                "--context-lengths",
                "2,4,6",
                "--fixed-context",
                "4",
                "--frame-step",
                "1",
            ]
        )
        == 0
    )
    recs = read_jsonl(os.path.join(run, "surprise.jsonl"))
    assert sorted(r["violation_level"] for r in recs) == sorted(levels * 3)  # the level travels onto each record
    res = json.load(open(os.path.join(run, "results.json")))
    assert (res["pairs"], res["comparisons"]) == (3, 9)
    assert res["tests"][0]["pre_onset"]["exactly_equal"] == 1.0  # every level shares the frames before the onset
    out = str(tmp_path / "psy")
    assert main(["report", run, "--psychometric", out, "--psychometric-boot", "20"]) == 0
    (t,) = json.load(open(os.path.join(out, psych_report.RESULTS)))["tests"]
    (s,) = t["scorers"]
    assert t["unit"] == "m" and [r["level"] for r in s["levels"]] == list(levels[1:])
    by = {r["id"]: r for r in recs}
    hand: Counter = Counter()
    for r in recs:  # the violated video's mean surprise at the pre-declared context 4 against its twin's
        if r["violation_level"] > 0:
            twin = by[f"{r['pair_id']}-plausible"]
            hand[r["violation_level"]] += bool(np.mean(r["surprise"]["4"]) > np.mean(twin["surprise"]["4"]))
    assert {r["level"]: r["noticed"] for r in s["levels"]} == {x: hand[x] for x in levels[1:]}
    assert sum(r["n"] for r in s["levels"]) + sum(s["left_out"].values()) == 9


# -- a human study: the panel's own report and this one agree ---------------------------------------------------


def test_a_constant_stimuli_study_reads_alike_in_both_reports(tmp_path, monkeypatch):
    """Simulated observers answer a constant-stimuli study through its store; the export's psychometric responses
    (levels from the records the export writes) equal the human report's pooled counts, and both fit the same
    threshold point."""
    import random

    from voebench.evaluate import report
    from voebench.evaluate.humans import curves, design, export, study
    from voebench.evaluate.humans.store import Study
    from voebench.evaluate.psychometrics import psi

    monkeypatch.setattr(curves, "POOLED_BOOT", 50)
    monkeypatch.setattr(curves, "POOLED_GOF", 0)
    monkeypatch.setattr(curves, "PARTICIPANT_BOOT", 10)
    root = make_graded_set(str(tmp_path / "set"), trials=9, binary=False)
    entries = entries_of(root)
    os.makedirs(os.path.join(root, SUITE, GRADED))
    for e in entries:  # a study hashes the videos it shows: small distinct stand-in files (never decoded)
        e["video"] = e["states"].replace(".h5", ".mp4")
        with open(os.path.join(root, e["video"]), "wb") as fh:
            fh.write(f"stand-in {e['id']}\n".encode() * 4)
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    study_dir = str(tmp_path / "study")
    study.create(
        root, study_dir, design.default_design("grasp", 4, design="constant-stimuli", min_viewing="off")
    ).close()
    s = Study(study_dir)
    trials: dict[int, list[dict]] = {}
    for a in s.answers():
        trials.setdefault(a["participant"], []).append(a["trial"])
    for number, token in s.tokens():
        rng = random.Random(number)
        s.consent(token, True)
        s.instructions(token)
        for t in trials[number]:
            if t["phase"] == "main":
                noticed = rng.random() < float(psi(t["entry"]["violation_level"], 0.4, 15.0, 0.1, 0.02))
                value = "no" if noticed else "yes"
            else:
                value = t.get("expect") or t.get("truth")
            s.answer(token, t["position"], value, 1000, None)
    s.close()
    run = str(tmp_path / "run")
    export.export(study_dir, run)
    res = report.write_report(run)
    (theirs,) = res["humans"]["psychometric"]["tests"]
    tr = R.load_run(run).tests[(SUITE, GRADED)]
    assert per_level(tr.rows) == {r["level"]: (r["n"], r["noticed"]) for r in theirs["levels"]}
    # the answer rows (answers.jsonl) give the same responses, each with its participant
    levels, _note = R.manifest_levels(root)
    rows = R.from_human_answers(read_jsonl(os.path.join(run, "answers.jsonl")), levels).tests[(SUITE, GRADED)].rows
    assert per_level(rows) == per_level(tr.rows) and len({r["participant"] for r in rows}) == 4
    mine = psych_report.build([R.load_run(run)], n_boot=0, n_gof=0)["tests"][0]["scorers"][0]["fit"]
    assert mine["threshold"]["point"] == pytest.approx(theirs["pooled"]["threshold"]["point"])
