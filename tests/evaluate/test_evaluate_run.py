"""The whole path with `fake` and `replay` on a tiny rendered set: scoring, resume, report, exporters, CLI."""

import csv
import importlib.util
import json
import os
import pathlib

import pytest
import yaml

from voebench.cli import main
from voebench.errors import UsageError
from voebench.evaluate.models.base import Adapter
from voebench.evaluate.models.fake import FakeAdapter
from voebench.evaluate.run import CACHE, EvalConfig, EvalRunner, repeat_seeds
from voebench.evaluate.tasks import build_samples, load_manifest, select


def _results(run):
    with open(os.path.join(run, "results.json")) as fh:
        return json.load(fh)


def _records(run):
    with open(os.path.join(run, "samples.jsonl")) as fh:
        return [json.loads(line) for line in fh]


def test_always_yes_and_oracle(tiny_set, tmp_path):
    yes, oracle = str(tmp_path / "yes"), str(tmp_path / "oracle")
    assert main(["evaluate", tiny_set, "--model", "fake:yes", "--out", yes, "--repeats", "2", "--no-progress"]) == 0
    res = _results(yes)
    assert len(res["tests"]) == 5
    for row in res["tests"]:
        assert row["acc_pos"] == 1.0 and row["acc_neg"] == 0.0 and row["acc"] == 0.5
        assert row["invalid_rate"] == 0.0 and row["chance"] == 0.5 and row["yes_rate"] == 1.0
        assert row["ci95"][0] <= row["acc"] <= row["ci95"][1]
    assert res["run"]["repeat_seeds"] == repeat_seeds(0, 2)
    assert os.path.getsize(os.path.join(yes, "accuracy.png")) > 1000
    assert "| grasp-l2 | t09_gravity | plausibility |" in pathlib.Path(yes, "report.md").read_text()

    assert (
        main(
            [
                "evaluate",
                tiny_set,
                "--model",
                "fake:oracle",
                "--out",
                oracle,
                "--no-progress",
                "--strategy",
                "cot",
                "--repeats",
                "1",
            ]
        )
        == 0
    )
    for row in _results(oracle)["tests"]:
        assert row["acc"] == 1.0 and row["acc_pos"] == 1.0 and row["acc_neg"] == 1.0
    for strategy in ("one-shot", "text", "open"):
        out = str(tmp_path / f"oracle-{strategy}")
        assert (
            main(
                [
                    "evaluate",
                    tiny_set,
                    "--model",
                    "fake:oracle",
                    "--out",
                    out,
                    "--no-progress",
                    "--strategy",
                    strategy,
                    "--repeats",
                    "1",
                ]
            )
            == 0
        )
        rows = _results(out)["tests"]
        assert rows and all(r["acc"] == 1.0 for r in rows), strategy
    open_rows = _results(str(tmp_path / "oracle-open"))["tests"]
    assert {r["test"]: r["chance"] for r in open_rows} == {"shape": 0.5, "directionality": 0.25}


def test_per_sample_log_fields(tiny_set, tmp_path):
    run = str(tmp_path / "run")
    assert (
        main(
            [
                "evaluate",
                tiny_set,
                "--model",
                "fake:random",
                "--out",
                run,
                "--repeats",
                "3",
                "--num-frames",
                "4",
                "--strategy",
                "cot",
                "--tests",
                "shape",
                "--no-progress",
                "--seed",
                "7",
            ]
        )
        == 0
    )
    recs = _records(run)
    assert len(recs) == 4 * 3
    r = recs[0]
    for k in (
        "sample_id",
        "video_id",
        "turns",
        "responses",
        "response",
        "parsed",
        "valid",
        "correct",
        "model",
        "settings",
        "seed",
        "repeat",
        "strategy",
        "truth",
        "polarity",
    ):
        assert k in r
    assert r["turns"][0]["frames"] == [0, 2, 5, 7] and r["turns"][1]["frames"] is None
    assert len(r["responses"]) == 2 and r["response"] == r["responses"][-1]
    assert {x["seed"] for x in recs} == set(repeat_seeds(7, 3))


class Tricky(Adapter):
    name = "tricky"


def test_replay_tricky_answers_scored_by_rule(tiny_set, tmp_path):
    m = load_manifest(tiny_set)
    samples = build_samples(m, select(m, tests=["shape"]), "zero-shot")
    answers = ["Yes.", "no, because", "I think yes", ""]
    expected_parsed = ["yes", "no", "invalid", "invalid"]
    lines, want = [], {}
    for s, a, p in zip(samples, answers, expected_parsed):
        lines.append(json.dumps({"sample_id": s.sample_id, "response": a}))
        want[s.sample_id] = (p, p == s.truth)
    f = tmp_path / "answers.jsonl"
    f.write_text("\n".join(lines) + "\n")
    run = str(tmp_path / "replay")
    assert (
        main(
            [
                "evaluate",
                tiny_set,
                "--model",
                f"replay:{f}",
                "--tests",
                "shape",
                "--out",
                run,
                "--repeats",
                "1",
                "--no-progress",
            ]
        )
        == 0
    )
    recs = {r["sample_id"]: r for r in _records(run)}
    assert len(recs) == 4
    for sid, (parsed, correct) in want.items():
        assert recs[sid]["parsed"] == parsed and recs[sid]["correct"] == correct
        assert recs[sid]["valid"] == (parsed != "invalid")
    row = _results(run)["tests"][0]
    assert row["invalid_rate"] == 0.5

    # an earlier run's samples.jsonl replays to the same scores (per repeat, all turns)
    src = str(tmp_path / "src")
    assert (
        main(
            [
                "evaluate",
                tiny_set,
                "--model",
                "fake:random",
                "--strategy",
                "cot",
                "--out",
                src,
                "--repeats",
                "2",
                "--no-progress",
            ]
        )
        == 0
    )
    again = str(tmp_path / "again")
    assert (
        main(
            [
                "evaluate",
                tiny_set,
                "--model",
                f"replay:{src}/samples.jsonl",
                "--strategy",
                "cot",
                "--out",
                again,
                "--repeats",
                "2",
                "--no-progress",
            ]
        )
        == 0
    )
    a = {(r["sample_id"], r["repeat"]): r["responses"] for r in _records(src)}
    b = {(r["sample_id"], r["repeat"]): r["responses"] for r in _records(again)}
    assert a == b


def test_replay_missing_answers_are_reported_not_scored(tiny_set, tmp_path):
    f = tmp_path / "few.jsonl"
    f.write_text(json.dumps({"sample_id": "grasp-l1/shape/00000#binary-positive", "response": "Yes"}) + "\n")
    run = str(tmp_path / "r")
    rc = main(
        [
            "evaluate",
            tiny_set,
            "--model",
            f"replay:{f}",
            "--tests",
            "shape",
            "--out",
            run,
            "--repeats",
            "1",
            "--no-progress",
        ]
    )
    assert rc == 1
    recs = _records(run)
    assert sum(r["correct"] is not None for r in recs) == 1
    assert all("no recorded response" in r["error"] for r in recs if r["correct"] is None)
    assert _results(run)["n_unscored"] == 3


class Counting(FakeAdapter):
    """fake:oracle that counts calls and can 'die' (KeyboardInterrupt) after a number of them."""

    def __init__(self, die_after=None):
        super().__init__("oracle")
        self.name = "fake:oracle"
        self.batch_size = 3
        self.calls = []
        self.die_after = die_after

    def generate(self, requests):
        out = []
        for r in requests:
            if self.die_after is not None and len(self.calls) >= self.die_after:
                raise KeyboardInterrupt
            self.calls.append((r.sample.sample_id, r.repeat, r.turn))
            out.extend(super().generate([r]))
        return out


@pytest.mark.parametrize("strategy", ["zero-shot", "cot"])
def test_resume_after_kill_asks_only_for_missing(tiny_set, tmp_path, strategy):
    m = load_manifest(tiny_set)
    samples = build_samples(m, select(m), strategy)
    cfg = EvalConfig(strategy=strategy, repeats=2, num_frames=4)
    run = str(tmp_path / "run")
    total = sum(len(s.turns) for s in samples) * 2

    first = Counting(die_after=13)
    with pytest.raises(KeyboardInterrupt):
        EvalRunner(first, samples, run, cfg, progress=False).run()
    assert json.loads(pathlib.Path(run, "run.json").read_text())["state"] == "incomplete"
    # every batch answered before the kill is cached; only the batch in flight (3 calls, 1 made) is lost
    with open(os.path.join(run, CACHE)) as fh:
        cached = [json.loads(line) for line in fh if line.strip()]
    assert len(first.calls) == 13 and len(cached) == 12
    # a torn line from the kill must not break the next run
    with open(os.path.join(run, CACHE), "a") as fh:
        fh.write('{"key": "abc", "resp')

    second = Counting()
    runner = EvalRunner(second, samples, run, cfg, progress=False)
    jobs = runner.run()
    assert all(j.done for j in jobs)
    assert len(second.calls) == total - 12
    assert set(first.calls) & set(second.calls) == {first.calls[-1]}  # the one call of the lost batch
    recs = _records(run)
    assert len(recs) == len(samples) * 2 and all(r["correct"] for r in recs)
    assert sum(sum(r["cached"]) for r in recs) == 12

    third = Counting()
    EvalRunner(third, samples, run, cfg, progress=False).run()
    assert third.calls == []  # all cached

    # other settings (here: frames) are other cache keys: asked again
    fourth = Counting()
    EvalRunner(fourth, samples, run, EvalConfig(strategy=strategy, repeats=2, num_frames=2), progress=False).run()
    assert len(fourth.calls) == total


def test_cot_second_turn_sees_first_reply(tiny_set, tmp_path):
    seen = []

    class Echo(Adapter):
        name = "echo"
        batch_size = 4

        def generate(self, requests):
            seen.extend(requests)
            return [f"reply-{r.turn}" for r in requests]

    m = load_manifest(tiny_set)
    samples = build_samples(m, select(m, tests=["movement"]), "cot")
    EvalRunner(
        Echo(), samples, str(tmp_path / "e"), EvalConfig("cot", repeats=1, system_prompt="SYS"), progress=False
    ).run()
    second = [r for r in seen if r.turn == 1]
    assert len(second) == len(samples)
    roles = [msg["role"] for msg in second[0].messages]
    assert roles == ["system", "user", "assistant", "user"]
    assert second[0].messages[2]["text"] == "reply-0"
    assert "video" in second[0].messages[1] and "video" not in second[0].messages[3]


def test_grasp_csv_export(tiny_set, tmp_path):
    run = str(tmp_path / "run")
    assert (
        main(
            [
                "evaluate",
                tiny_set,
                "--model",
                "fake:yes",
                "--out",
                run,
                "--repeats",
                "2",
                "--strategy",
                "cot",
                "--no-progress",
            ]
        )
        == 0
    )
    out = tmp_path / "results.csv"
    assert main(["export", "grasp-csv", run, "--out", str(out)]) == 0
    with open(out, newline="") as fh:
        rows = list(csv.reader(fh))
    assert rows[0] == ["scene", "prompt", "video_file", "gt", "response"]
    assert len(rows) == 1 + 20 * 2
    byscene = {}
    for r in rows[1:]:
        byscene.setdefault(r[0], []).append(r)
    assert set(byscene) == {"Shape", "Direction", "Movement", "P_Gravity", "IP_Gravity", "P_A1", "IP_A1"}
    r = byscene["Shape"][0]
    assert r[1].startswith("What shape is the object on the table?<SEP>A ")
    assert r[2].endswith(".mp4,") and r[4] == "I see a video.<SEP>Yes." and r[3] in ("yes", "no")
    folder = tmp_path / "grasp"
    assert main(["export", "grasp-csv", run, "--out", str(folder), "--repeat", "1"]) == 0
    assert (folder / "level1-cot" / "results.csv").exists()
    assert (folder / "level2" / "test_config.yaml").read_text() == "test_name: level2\n"
    assert main(["export", "grasp-csv", run, "--out", str(folder), "--repeat", "5"]) == 2


class FunctionLoader(yaml.SafeLoader):
    pass


FunctionLoader.add_constructor("!function", lambda loader, node: ("function", loader.construct_scalar(node)))


def test_lmms_eval_task_folder(tiny_set, tmp_path):
    out = tmp_path / "lmms"
    assert main(["export", "lmms-eval", tiny_set, "--out", str(out), "--name", "voe_tiny"]) == 0
    assert (out / "utils.py").exists() and (out / "data.jsonl").exists()
    spec = importlib.util.spec_from_file_location("lmms_utils_under_test", out / "utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    yamls = sorted(p.name for p in out.glob("*.yaml"))
    assert "voe_tiny.yaml" in yamls and "voe_tiny_grasp_l1_shape.yaml" in yamls
    for name in yamls:
        cfg = yaml.load((out / name).read_text(), Loader=FunctionLoader)
        assert cfg["task"] == name[:-5]
        assert cfg["dataset_path"] == "json" and cfg["output_type"] == "generate_until"
        data_file = out / cfg["dataset_kwargs"]["data_files"]["test"]
        assert data_file.exists() and cfg["test_split"] == "test"
        for key in ("doc_to_visual", "doc_to_text", "doc_to_messages", "process_results"):
            kind, ref = cfg[key]
            assert kind == "function" and ref.startswith("utils.") and callable(getattr(utils, ref[6:]))
        metrics = {mm["metric"] for mm in cfg["metric_list"]}
        docs = [json.loads(line) for line in data_file.read_text().splitlines()]
        assert docs
        for doc in docs:
            assert os.path.isfile(utils.doc_to_visual(doc)[0])
            msg = utils.doc_to_messages(doc)
            assert msg[0]["content"][0]["type"] == "video" and msg[0]["content"][1]["text"] == doc["question"]
            res = utils.process_results(doc, ["Yes." if doc["answer"] == "yes" else f"{doc['answer']}"])
            assert set(res) <= metrics  # lmms-eval needs every returned key listed as a metric
            assert res["grasp_acc"] == 1.0, doc
            assert utils.process_results(doc, ["I think so"])["grasp_invalid"] == 1.0
    kinds = {json.loads(line)["kind"] for line in (out / "data.jsonl").read_text().splitlines()}
    assert kinds == {"binary", "open", "plausibility"}
    # self-contained copy of the videos
    out2 = tmp_path / "lmms2"
    assert main(["export", "lmms-eval", tiny_set, "--out", str(out2), "--copy-videos", "--suite", "grasp-l2"]) == 0
    doc = json.loads((out2 / "data.jsonl").read_text().splitlines()[0])
    assert doc["video"].startswith("videos/") and (out2 / doc["video"]).exists()


def test_usage_errors_exit_2(tiny_set, tmp_path, capsys):
    out = str(tmp_path / "x")
    assert main(["evaluate", tiny_set, "--model", "gpt4", "--out", out]) == 2
    assert "--model" in capsys.readouterr().err
    assert main(["evaluate", tiny_set, "--model", "openai:m@localhost:8000", "--out", out]) == 2
    assert main(["evaluate", tiny_set, "--model", "fake:maybe", "--out", out]) == 2
    assert main(["evaluate", tiny_set, "--model", "replay:/no/such/file", "--out", out]) == 2
    assert main(["evaluate", str(tmp_path), "--model", "fake:yes", "--out", out]) == 2
    assert main(["evaluate", tiny_set, "--model", "fake:yes", "--tests", "nope", "--out", out]) == 2
    assert (
        main(["evaluate", tiny_set, "--model", "fake:yes", "--suite", "grasp-l2", "--strategy", "open", "--out", out])
        == 2
    )
    assert main(["report", str(tmp_path / "missing")]) == 2
    err = capsys.readouterr().err
    assert err.count("error:") == 7
    with pytest.raises(UsageError):
        from voebench.evaluate.models import parse_spec

        parse_spec("hf:")


def test_report_compare(tiny_set, tmp_path, capsys):
    runs = []
    for kind in ("yes", "oracle"):
        run = str(tmp_path / kind)
        assert (
            main(["evaluate", tiny_set, "--model", f"fake:{kind}", "--out", run, "--repeats", "1", "--no-progress"])
            == 0
        )
        runs.append(run)
    png = str(tmp_path / "fig3.png")
    assert main(["report", *runs, "--compare", png, "--bootstrap", "200"]) == 0
    assert os.path.getsize(png) > 1000
    assert "# voebench results: fake:oracle" in capsys.readouterr().out


def test_evaluate_never_imports_the_blender_side():
    import subprocess
    import sys

    root = pathlib.Path(__file__).resolve().parents[2] / "evaluate"
    for f in root.rglob("*.py"):
        if "baseline" in f.parts:
            continue
        text = f.read_text()
        for bad in ("import bpy", "voebench.generator", "voebench.scenes", "from generator", "from scenes"):
            assert bad not in text, f"{f}: {bad}"
    code = (
        "import sys\n"
        "import voebench.evaluate.cli, voebench.evaluate.run, voebench.evaluate.report, voebench.evaluate.tasks\n"
        "import voebench.evaluate.models.openai, voebench.evaluate.models.replay, voebench.evaluate.models.fake\n"
        "import voebench.evaluate.export.grasp_csv, voebench.evaluate.export.lmms_eval\n"
        "bad = [m for m in sys.modules if m.split('.')[0] == 'bpy' or m.startswith(('voebench.generator',"
        " 'voebench.scenes'))]\n"
        "heavy = [m for m in ('torch', 'transformers') if m in sys.modules]\n"
        "assert not bad and not heavy, (bad, heavy)\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


def test_frame_prefetch_and_cache(tiny_set):
    from voebench.evaluate import frames

    m = load_manifest(tiny_set)
    paths = [m.video(e).path for e in m.entries[:6]]
    frames.clear_cache()
    frames.prefetch((p, [0, 7]) for p in paths)
    got = [frames.read_frames(p, [0, 7]) for p in paths]
    assert all(g.shape == (2, 48, 64, 3) for g in got)
    assert frames.read_frames(paths[0], [0, 7]) is got[0]  # cached
    with pytest.raises(RuntimeError):
        frames.read_frames(paths[0], [99])
    with pytest.raises(RuntimeError):  # failed decodes are dropped from the cache and tried again
        frames.read_frames(paths[0], [99])
