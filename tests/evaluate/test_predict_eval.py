"""The predict evaluation without Blender: query forms, the exact scorer (an exact-answer model scores F1 = 1, a
never-collide model the documented chance level), judge-reply parsing, agreement statistics, caches and resume,
and the command line with fake models and a fake judge. The set is written by hand (tiny mp4s, manifest entries
with a `prediction` object as the predict suite writes them)."""

from __future__ import annotations

import json
import os

import pytest
from conftest import voebench
from contract_fixtures import complete_entry, write_dataset
from evaluate_fixtures import write_mp4

from voebench.contract import manifest as mf
from voebench.evaluate.predict import exact
from voebench.evaluate.predict.fake import MESSY, FakeJudge, FakePredictModel
from voebench.evaluate.predict.judge import cohen_kappa, parse_scores, spearman
from voebench.evaluate.predict.queries import IMAGE_QUERY, build_samples, image_frames, image_query
from voebench.evaluate.predict.run import CACHE, JUDGE_CACHE, run_predict
from voebench.evaluate.tasks import load_manifest

N_FRAMES, FPS = 20, 10
SCENES = [  # (labels, true pairs): three clips with collisions, one without
    (["red cube", "blue sphere", "green cylinder"], [["red cube", "blue sphere"]]),
    (
        ["yellow sphere", "white cube", "purple cylinder"],
        [["white cube", "purple cylinder"], ["yellow sphere", "white cube"]],
    ),
    (["green sphere", "red cylinder", "blue cube", "white sphere"], [["green sphere", "blue cube"]]),
    (["purple cube", "yellow cylinder", "red sphere"], []),
]


def predict_entry(i: int, labels: list, pairs: list) -> dict:
    hit = {x for p in pairs for x in p}
    objects = [
        {
            "name": f"object{k}",
            "label": lab,
            "color": lab.split()[0],
            "shape": lab.split()[1],
            "position_at_cut": [0.5 * k, 0.0],
            "velocity_at_cut": [1.0, 0.0],
        }
        for k, lab in enumerate(labels)
    ]
    pred = {
        "outcome": "collision" if pairs else "no_collision",
        "cut_frame": 9,
        "cut_time": 0.9,
        "event_frame": 14,
        "objects": objects,
        "collisions": [{"objects": p, "names": [], "frame": 14 + k, "time": 1.4} for k, p in enumerate(pairs)],
        "unhit": [x for x in labels if x not in hit],
        "final_positions": {x: [0.0, 0.0] for x in labels},
        "answer": "; ".join(f"the {a} collides with the {b}" for a, b in pairs) or "No objects collide.",
    }
    return complete_entry(
        {
            "id": f"predict/collisions/{i:05d}",
            "suite": "predict",
            "test": "collisions",
            "index": i,
            "condition": pred["outcome"],
            "video": f"predict/collisions/{i:05d}.mp4",
            "states": f"predict/collisions/{i:05d}.h5",
            "n_frames": N_FRAMES,
            "fps": FPS,
            "width": 64,
            "height": 48,
            "prompts": [{"kind": "prediction", "text": "q", "answer": pred["answer"]}],
            "prediction": pred,
        }
    )


@pytest.fixture(scope="module")
def predict_set(tmp_path_factory):
    root = tmp_path_factory.mktemp("predict") / "set"
    os.makedirs(root / "predict" / "collisions")
    entries = [predict_entry(i, labels, pairs) for i, (labels, pairs) in enumerate(SCENES)]
    for e in entries:
        write_mp4(str(root / e["video"]), e["index"], n=N_FRAMES)
    mf.write_manifest(str(root / mf.NAME), entries)
    write_dataset(str(root))
    return root


def samples_of(root, forms=("image", "video")):
    return build_samples(load_manifest(str(root)), list(forms), image_count=5, video_frames=8)


# ------------------------------------------------------------------------------------------------- queries


def test_image_frames_are_the_last_frame_of_each_segment_up_to_the_cut():
    assert image_frames(49, 5) == [9, 19, 29, 39, 49]
    assert image_frames(3, 5) == [0, 1, 2, 3]  # a clip shorter than N frames: every frame


def test_a_five_second_clip_gets_the_seeds_image_query_word_for_word():
    assert image_query(5, 5.0) == IMAGE_QUERY.format(count="five", segment="each second in a 5-second video")
    assert "each second in a 5-second video" in image_query(5, 5.0)
    assert "each 0.40-second segment of a 2.00-second video" in image_query(5, 2.0)


def test_the_manifest_prompt_is_the_evaluators_video_query():
    from voebench.evaluate.predict.queries import VIDEO_QUERY
    from voebench.scenes.predict.prompts import VIDEO_QUERY as SCENE_QUERY

    assert SCENE_QUERY == VIDEO_QUERY


def test_samples_record_the_forms_frames_and_cut(predict_set):
    samples = samples_of(predict_set)
    assert len(samples) == 2 * len(SCENES)
    img = next(s for s in samples if s.form == "image")
    vid = next(s for s in samples if s.form == "video")
    assert img.frames == [1, 3, 5, 7, 9] and img.cut_frame == 9 and img.message()["video"]["as_images"]
    assert vid.frames[0] == 0 and vid.frames[-1] == 9 and len(vid.frames) == 8
    assert not vid.message()["video"]["as_images"]
    assert max(max(s.frames) for s in samples) <= 9  # nothing after the cut is shown


# ------------------------------------------------------------------------------------------------- exact scorer

LABELS = ["red cube", "blue sphere", "green cylinder"]


@pytest.mark.parametrize(
    "text, pairs, unhit",
    [
        (
            "1. The red cube will collide with the blue sphere.\n2. The green cylinder continues unscathed.",
            [{"red cube", "blue sphere"}],
            {"green cylinder"},
        ),
        (
            "The red box and the blue ball are on a collision course; the green one won't be hit.",
            [{"red cube", "blue sphere"}],
            {"green cylinder"},
        ),
        (
            "- red cube -> hits blue sphere\n- green cylinder avoids everything",
            [{"red cube", "blue sphere"}],
            {"green cylinder"},
        ),
        (
            "The blue sphere will strike the red cube and the green cylinder.",
            [{"blue sphere", "red cube"}, {"blue sphere", "green cylinder"}],
            set(),
        ),
        ("No objects will collide.", [], set(LABELS)),  # nothing collides: every object is unscathed
        ("The red cylinder hits the green cylinder.", [{"red cylinder", "green cylinder"}], set()),  # wrong shape
        # a colour between a colour and a shape is an object of its own, not a filler word
        ("The red and blue spheres will collide.", [{"red cube", "blue sphere"}], set()),
        # the negation of one clause does not reach the collision of the next
        (
            "The red cube and the blue sphere will not collide but the green cylinder will hit the red cube.",
            [{"green cylinder", "red cube"}],
            {"blue sphere"},
        ),
        (
            "The red cube hits the blue sphere, missing the green cylinder.",
            [{"red cube", "blue sphere"}],
            {"green cylinder"},
        ),
        # bare lines are items too
        (
            "The red cube hits the blue sphere\nThe green cylinder stays untouched",
            [{"red cube", "blue sphere"}],
            {"green cylinder"},
        ),
    ],
)
def test_parse_finds_pairs_and_unscathed_objects(text, pairs, unhit):
    p = exact.parse(text, LABELS)
    assert p.pairs == {frozenset(x) for x in pairs}
    assert p.unhit == unhit


def test_scores_for_right_wrong_and_hedged_answers():
    truth = [["red cube", "blue sphere"]]
    _, right = exact.score("The red cube hits the blue sphere.", LABELS, truth)
    assert (right.precision, right.recall, right.f1, right.strict) == (1.0, 1.0, 1.0, True)
    _, hedged = exact.score(
        "1. The red cube hits the blue sphere. 2. The red cube hits the green cylinder.", LABELS, truth
    )
    assert hedged.recall == 1.0 and hedged.precision == 0.5 and not hedged.strict
    _, none = exact.score("Nothing will collide.", LABELS, truth)
    assert none.f1 == 0.0 and not none.outcome_correct
    _, empty_ok = exact.score("Nothing will collide.", LABELS, [])
    assert empty_ok.f1 == 1.0 and empty_ok.strict and empty_ok.outcome_correct
    _, called_safe = exact.score("The red cube hits the blue sphere. The blue sphere is unscathed.", LABELS, truth)
    assert called_safe.unparsed and not called_safe.strict  # a self-contradiction is unreadable, never credited


def _run(root, model, judge, out, temps=(None,)):
    samples = samples_of(root)
    models = {t: FakePredictModel(model, t) for t in temps}
    return run_predict(samples, models, FakeJudge(judge) if judge else None, str(out))


def test_an_exact_answer_model_scores_f1_one(predict_set, tmp_path):
    res = _run(predict_set, "oracle", "exact", tmp_path / "run")
    for g in res["groups"]:
        e = g["exact"]
        assert e["micro_f1"] == e["macro_f1"] == e["strict"] == e["outcome_accuracy"] == 1.0


def test_a_never_collide_model_scores_the_documented_chance_level(predict_set, tmp_path):
    """docs/predict.md: macro F1 = outcome accuracy = strict = the share of clips without a collision; micro F1 = 0."""
    share = sum(1 for _, pairs in SCENES if not pairs) / len(SCENES)
    res = _run(predict_set, "never", None, tmp_path / "run")
    for g in res["groups"]:
        e = g["exact"]
        assert e["micro_f1"] == 0.0
        assert e["macro_f1"] == e["outcome_accuracy"] == e["strict"] == pytest.approx(share)


def test_an_all_pairs_model_has_full_recall_and_low_precision(predict_set, tmp_path):
    res = _run(predict_set, "all", None, tmp_path / "run")
    e = res["groups"][0]["exact"]
    assert e["micro_recall"] == 1.0 and e["micro_precision"] < 0.5 and e["strict"] == 0.0


# ------------------------------------------------------------------------------------------------- judge


@pytest.mark.parametrize("style", MESSY)
def test_judge_scores_are_read_from_messy_replies(style):
    assert parse_scores(style.format(s=4, l=2, a=1)) == {"specificity": 4, "logical_consistency": 2, "accuracy": 1}


@pytest.mark.parametrize(
    "reply, want",
    [
        ("Specificity: score: []. Logical Consistency: score: [3]. Accuracy: score: [0].", (None, 3, 0)),
        ("I cannot evaluate this prediction.", (None, None, None)),
        ("Accuracy: 3 (it is mostly right)", (None, None, None)),  # off its 0/1 scale: invalid, not clipped
        ("Specificity: 7/5. Logical consistency: 2.5. Accuracy: score: 1", (None, 2.5, 1)),
        ("SPECIFICITY - score [5]\nLOGICAL CONSISTENCY - score [0]\nACCURACY - score [0]", (5, 0, 0)),
    ],
)
def test_judge_parsing_refuses_to_guess(reply, want):
    got = parse_scores(reply)
    assert (got["specificity"], got["logical_consistency"], got["accuracy"]) == want


def test_agreement_statistics():
    assert spearman([1, 2, 3, 4], [10, 20, 30, 40]) == pytest.approx(1.0)
    assert spearman([1, 2, 3, 4], [4, 3, 2, 1]) == pytest.approx(-1.0)
    assert spearman([1, 1, 1], [1, 2, 3]) is None
    assert cohen_kappa([1, 0, 1, 0], [1, 0, 1, 0]) == 1.0
    assert cohen_kappa([1, 1, 0, 0], [1, 0, 1, 0]) == pytest.approx(0.0)
    assert cohen_kappa([1, 1, 1, 0], [1, 1, 0, 0]) == pytest.approx(0.5)


def test_an_exact_judge_agrees_with_the_exact_score(predict_set, tmp_path):
    res = _run(predict_set, "random", "messy", tmp_path / "run")
    for g in res["groups"]:
        ag = g["judge"]["agreement"]
        assert g["judge"]["accuracy_invalid"] == 0.0
        assert ag["kappa_accuracy_vs_strict"] in (1.0, None) and ag["raw_agreement_accuracy_vs_strict"] == 1.0


# ------------------------------------------------------------------------------------------------- cache, resume


def _calls(out):
    return json.load(open(os.path.join(out, "run.json")))["calls_this_run"]


def test_model_and_judge_answers_are_cached_and_a_run_resumes(predict_set, tmp_path):
    out = tmp_path / "run"
    _run(predict_set, "oracle", "messy", out, temps=(0.0, 1.0))
    n = 2 * len(SCENES)
    assert _calls(out) == {"0.0": n, "1.0": n, "judge": 2 * n}
    first = open(out / "samples.jsonl").read()
    _run(predict_set, "oracle", "messy", out, temps=(0.0, 1.0))
    assert _calls(out) == {"0.0": 0, "1.0": 0, "judge": 0}
    # a killed run: the caches lose their last lines (one torn); the rerun asks only for those
    for name, keep in ((CACHE, 10), (JUDGE_CACHE, 5)):
        lines = open(out / name).read().splitlines()
        open(out / name, "w").write("\n".join(lines[:keep]) + "\n" + lines[keep][:20])
    _run(predict_set, "oracle", "messy", out, temps=(0.0, 1.0))
    calls = _calls(out)
    assert calls["0.0"] + calls["1.0"] == 2 * n - 10 and calls["judge"] == 2 * n - 5
    strip = lambda s: [{k: v for k, v in json.loads(x).items() if k != "cached"} for x in s.splitlines()]  # noqa: E731
    assert strip(open(out / "samples.jsonl").read()) == strip(first)


def test_the_command_line_with_fake_models_and_a_fake_judge(predict_set, tmp_path):
    out = tmp_path / "cli"
    proc = voebench(
        "predict",
        predict_set,
        "--model",
        "fake:oracle",
        "--judge",
        "fake:messy",
        "--out",
        out,
        "--temperatures",
        "0,0.5,1",
    )
    assert "| collision | image | 0.5 |" in proc.stdout and "| collision | video | 1.0 |" in proc.stdout
    rec = json.loads(open(out / "samples.jsonl").readline())
    assert {"frames", "cut_frame", "prompt", "response", "exact", "judge_response", "judge_scores"} <= set(rec)
    bad = voebench("predict", predict_set, "--model", "fake:yes", "--out", tmp_path / "x", check=False)
    assert bad.returncode == 2 and "fake:yes" in bad.stderr
    bad = voebench(
        "predict", predict_set, "--model", "fake:never", "--temperatures", "a", "--out", tmp_path / "y", check=False
    )
    assert bad.returncode == 2


def test_replayed_judge_replies(predict_set, tmp_path):
    """A judge's replies recorded elsewhere can be scored again through `replay:` (keyed by judged item)."""
    out = tmp_path / "run"
    _run(predict_set, "oracle", "messy", out)
    replies = tmp_path / "judge.jsonl"
    with open(replies, "w") as fh:
        for rec in map(json.loads, open(out / "samples.jsonl")):
            key = f"{rec['sample_id']}@T={rec['temperature']}#r{rec['repeat']}"
            fh.write(
                json.dumps({"sample_id": key, "response": "Specificity: 2. Logical Consistency: 2. Accuracy: 0"}) + "\n"
            )
    proc = voebench(
        "predict", predict_set, "--model", "fake:oracle", "--judge", f"replay:{replies}", "--out", tmp_path / "replayed"
    )
    res = json.load(open(tmp_path / "replayed" / "results.json"))
    assert all(g["judge"]["accuracy"] == 0.0 for g in res["groups"]), proc.stdout


@pytest.mark.parametrize(
    "reply, letter",
    [
        ("B. The ball rolls back.", "B"),
        ("Answer: a", "A"),
        ("**B**: it bounces", "B"),
        ("I think the answer is B.", "B"),
        ("Option A, because...", "A"),
        ("It will bounce back.", None),
        ("A ball rolls in, so the answer is B.", "B"),  # a leading article is not option A
    ],
)
def test_event_answers_are_read_as_a_letter(reply, letter):
    from voebench.evaluate.predict.events import EventSample

    s = EventSample(
        "x",
        "x",
        "video",
        "v.mp4",
        "v.mp4",
        10.0,
        20,
        64,
        48,
        [0, 9],
        9,
        "q",
        "truth",
        "B",
        {"A": "false", "B": "truth"},
        "",
        "t14_collision",
    )
    parsed, sc = s.score(reply)
    assert parsed["choice"] == letter and sc.strict == (letter == "B")


def test_lmms_eval_export_holds_only_the_clip_and_scores_exactly(predict_set, tmp_path):
    """The task folder's hooks run without voebench (python -I -S: no site-packages); the oracle's answers score
    1 on every metric, the never-collide answer the chance level; the files hold the frames up to the cut only."""
    import subprocess
    import sys

    out = tmp_path / "task"
    voebench("predict-export", predict_set, "--out", out)
    docs = [json.loads(x) for x in open(out / "data.jsonl")]
    assert len(docs) == 2 * len(SCENES) and {d["form"] for d in docs} == {"image", "video"}
    for d in docs:
        assert max(d["frames"]) == d["cut_frame"] == 9
        if d["form"] == "image":
            assert len(d["visuals"]) == 5
        else:
            from voebench.evaluate.frames import read_frames

            clip = str(out / d["visuals"][0])
            assert len(read_frames(clip, list(range(len(d["frames"]))))) == len(d["frames"])
    code = """
import json, sys
sys.path.insert(0, sys.argv[1])
import utils
from predict_exact import parse
for line in open(sys.argv[1] + '/data_video.jsonl'):
    d = json.loads(line)
    oracle = '. '.join(f'The {a} will hit the {b}' for a, b in d['true_pairs']) or 'Nothing will collide.'
    print(json.dumps([utils.process_results(d, [oracle]), utils.process_results(d, ['No two objects will collide.']),
                      utils.doc_to_messages(d)[0]['content'][0]['type']]))
"""
    proc = subprocess.run([sys.executable, "-I", "-S", "-c", code, str(out)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(x) for x in proc.stdout.splitlines()]
    assert all(r[0] == {"predict_f1": 1.0, "predict_outcome": 1.0, "predict_strict": 1.0} for r in rows)
    share = sum(1 for _, pairs in SCENES if not pairs) / len(SCENES)
    assert sum(r[1]["predict_f1"] for r in rows) / len(rows) == pytest.approx(share)
    assert {r[2] for r in rows} == {"video"}


def test_openai_requests_send_an_image_query_as_images_and_a_video_query_as_a_video(predict_set):
    from voebench.evaluate.models.base import Request
    from voebench.evaluate.models.openai import OpenAIAdapter

    adapter = OpenAIAdapter("m", "http://localhost:1/v1", temperature=0.5)
    for s in samples_of(predict_set)[:2]:
        body = adapter.body(Request([s.message()], 0, 0, 0, 1, s))
        parts = body["messages"][0]["content"]
        kinds = [p["type"] for p in parts]
        assert body["temperature"] == 0.5 and kinds[-1] == "text" and parts[-1]["text"] == s.prompt
        if s.form == "image":
            assert kinds[:-1] == ["image_url"] * 5
        else:
            assert kinds[:-1] == ["video_url"]
