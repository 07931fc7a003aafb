"""`voebench export lmms-eval` asks a model as `voebench evaluate` does, and its groups aggregate as the report does
(issue 26, items 1 and 2).

One model's answers are replayed through both paths: `voebench evaluate --model replay:` (then `voebench report`)
and the exported task folder's hooks (`doc_to_messages`, the YAML's `generation_kwargs`, `process_results`). Per
sample the question text, the system prompt, the frames shown and the generation settings must be identical, and
so must every score, per test and kind and per suite. Where lmms-eval itself is installed (here, or in the Python
named by $VOEBENCH_LMMS_EVAL_PYTHON, e.g. a venv with `pip install lmms-eval==0.7.3 'filelock<4'`), the same folder
is also loaded and run by lmms-eval's own task loader and evaluator with a replay model; otherwise that test skips.
"""

from __future__ import annotations

import importlib.util
import json
import os
import shutil
import subprocess
import sys

import numpy as np
import pytest
import yaml

from voebench.cli import main
from voebench.evaluate import ask, prompts
from voebench.evaluate.export.lmms_eval import LMMS_EVAL_MODEL_NAMES, system_prompts
from voebench.evaluate.frames import read_frames

REPLIES = ["Yes.", "no", "", "I think so", "A ball.", "a cube", "left to right", "To the right.", "yes, it does"]
SETTINGS = ["--num-frames", "5", "--max-new-tokens", "7", "--sampling", "greedy", "--system-prompt", "Be brief."]


class FunctionLoader(yaml.SafeLoader):
    """Reads lmms-eval's `!function module.name` tags as ("function", "module.name")."""


FunctionLoader.add_constructor("!function", lambda loader, node: ("function", loader.construct_scalar(node)))


def _yaml(path) -> dict:
    with open(path, encoding="utf-8") as fh:
        return yaml.load(fh, Loader=FunctionLoader)


def _utils(folder):
    spec = importlib.util.spec_from_file_location(f"exported_utils_{abs(hash(str(folder)))}", folder / "utils.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _specific(cfg: dict, model_name: str) -> dict:
    """The `lmms_eval_specific_kwargs` lmms-eval 0.7.3 hands the hooks for `model_name` (api/task.py)."""
    kw = cfg["lmms_eval_specific_kwargs"]
    return kw[model_name] if model_name in kw else kw["default"]


def _replies(tiny_set, tmp_path) -> dict[str, str]:
    """A reply per question of both strategies (zero-shot and open): sample ids from a constant model's run."""
    ids = []
    for strategy in ("zero-shot", "open"):
        run = tmp_path / f"ids-{strategy}"
        argv = ["evaluate", tiny_set, "--model", "fake:yes", "--out", str(run), "--strategy", strategy]
        assert main([*argv, "--repeats", "1", "--no-progress"]) == 0
        ids += [json.loads(line)["sample_id"] for line in (run / "samples.jsonl").read_text().splitlines()]
    return {sid: REPLIES[i % len(REPLIES)] for i, sid in enumerate(sorted(ids))}


def _evaluate(tiny_set, tmp_path, replies: dict[str, str], extra: list[str], monkeypatch) -> tuple[dict, dict, dict]:
    """Replay `replies` through `voebench evaluate` (both strategies) and `voebench report`: records by sample id,
    report rows by (test, kind), and the generation options evaluate handed its adapter."""
    from voebench.evaluate import models  # noqa: PLC0415

    file = tmp_path / "replies.jsonl"
    file.write_text("".join(json.dumps({"sample_id": k, "response": v}) + "\n" for k, v in replies.items()))
    seen: dict = {}
    real = models.make_adapter

    def spy(spec, **kw):
        seen.update({k: kw[k] for k in ("max_new_tokens", "do_sample", "temperature")})
        return real(spec, **kw)

    monkeypatch.setattr(models, "make_adapter", spy)
    records, rows = {}, {}
    for strategy in ("zero-shot", "open"):
        run = tmp_path / f"run-{strategy}"
        argv = ["evaluate", tiny_set, "--model", f"replay:{file}", "--out", str(run), "--strategy", strategy]
        assert main([*argv, "--repeats", "1", "--no-progress", *extra]) == 0
        for line in (run / "samples.jsonl").read_text().splitlines():
            r = json.loads(line)
            records[r["sample_id"]] = r
        results = json.loads((run / "results.json").read_text())
        rows.update({(row["test"], row["kind"]): row for row in results["tests"]})
        rows.update({(s["suite"], s["kind"]): s for s in results["suites"]})
    return records, rows, seen


def _nearest(frame: np.ndarray, source: np.ndarray) -> int:
    return int(np.argmin([np.abs(frame.astype(int) - s.astype(int)).mean() for s in source]))


@pytest.mark.parametrize("extra", [[], SETTINGS], ids=["defaults", "set"])
def test_a_replayed_model_is_asked_and_scored_alike_by_both(tiny_set, tmp_path, monkeypatch, extra):
    replies = _replies(tiny_set, tmp_path)
    records, rows, adapter_options = _evaluate(tiny_set, tmp_path, replies, extra, monkeypatch)
    out = tmp_path / "lmms"
    assert main(["export", "lmms-eval", tiny_set, "--out", str(out), *extra]) == 0
    utils = _utils(out)
    asking = ask.AskSettings(**_yaml(out / "voebench.yaml")["metadata"]["voebench_ask"])
    docs_seen = 0
    per_task: dict[str, dict[str, list[float]]] = {}
    for task_file in sorted(out.glob("voebench_*.yaml")):
        cfg = _yaml(task_file)
        gen = dict(cfg["generation_kwargs"])
        # the generation settings: what evaluate handed its adapter, nothing else but the (absent) stop string
        assert gen.pop("until") == []
        assert gen == {k: v for k, v in adapter_options.items() if v is not None}
        kw = _specific(cfg, "some_model")
        docs = [json.loads(x) for x in (out / cfg["dataset_kwargs"]["data_files"]["test"]).read_text().splitlines()]
        for doc in docs:
            rec = records[doc["id"]]  # the same id: the same question
            turn = rec["turns"][0]
            messages = utils.doc_to_messages(doc, kw)
            system = [m for m in messages if m["role"] == "system"]
            assert [m["content"][0]["text"] for m in system] == ([rec["system_prompt"]] if rec["system_prompt"] else [])
            user = messages[-1]["content"]
            assert user[1]["text"] == utils.doc_to_text(doc, kw) == turn["text"] == rec["question"]
            assert doc["frames"] == turn["frames"]  # the frames evaluate logged for this sample
            shown = user[0]["url"]
            assert shown == utils.doc_to_visual(doc)[0] and os.path.isfile(shown)
            source = read_frames(os.path.join(tiny_set, doc["source_video"]), list(range(8)))
            clip = read_frames(shown, list(range(len(doc["frames"]))))
            assert [_nearest(f, source) for f in clip] == doc["frames"]  # exactly those frames, in order
            res = utils.process_results(doc, [replies[doc["id"]].strip()])  # lmms-eval strips replies
            assert res["grasp_acc"] == float(rec["correct"]) and res["grasp_invalid"] == float(not rec["valid"])
            for metric, value in res.items():
                per_task.setdefault(cfg["task"], {}).setdefault(metric, []).append(value)
            docs_seen += 1
    evaluated = _parse(["evaluate", tiny_set, "--model", "x", "--out", "o", *extra])
    assert docs_seen > 0 and asking == ask.from_args(evaluated)
    assert (len(doc["frames"]) == 5) == bool(extra)  # the set's videos have 8 frames: a 5-frame clip when set
    # per test and kind: the test task's per-kind metric, and the (test, kind) task's pooled one
    checked = 0
    asked = {(r["test"], r["kind"]) for r in records.values()}
    for (test, kind), row in rows.items():
        if (test, kind) not in asked:  # a suite row
            continue
        task = next(t for t, m in per_task.items() if t.endswith("_" + test.lower()) and f"grasp_acc_{kind}" in m)
        acc = per_task[task][f"grasp_acc_{kind}"]
        assert len(acc) == row["n"] and np.mean(acc) == pytest.approx(row["acc"]), (test, kind)
        assert np.mean(per_task[task][f"grasp_invalid_{kind}"]) == pytest.approx(row["invalid_rate"])
        if f"{task}_{kind}" in per_task:
            assert np.mean(per_task[f"{task}_{kind}"]["grasp_acc"]) == pytest.approx(row["acc"])
        checked += 1
    assert checked == len(asked) >= 6
    # per suite: the groups' unweighted mean over their tasks is the report's suite row
    for group_file in sorted((out / "groups").glob("*.yaml")):
        group = _yaml(group_file)
        for kind in ("binary", "open", "plausibility"):
            metric = f"grasp_acc_{kind}"
            means = [np.mean(per_task[t][metric]) for t in group["task"] if metric in per_task[t]]
            if not means and group["group"].endswith("_" + kind):
                means = [np.mean(per_task[t]["grasp_acc"]) for t in group["task"]]
            if not means:
                continue
            suite = next(s for s, _ in rows if group["group"].startswith(f"voebench_{_slug(s)}"))
            assert np.mean(means) == pytest.approx(rows[(suite, kind)]["mean_acc"]), (group["group"], kind)
    assert any(r["correct"] for r in records.values()) and any(not r["valid"] for r in records.values())


def _slug(s: str) -> str:
    return "".join(c if c.isalnum() else "_" for c in s.lower())


def _parse(argv: list[str]):
    from voebench.cli import build_parser  # noqa: PLC0415

    return build_parser().parse_args(argv)


@pytest.mark.parametrize(
    "flags",
    [[], SETTINGS, ["--fps", "2.5", "--sampling", "sample", "--temperature", "0.7"], ["--num-frames", "0"]],
)
def test_both_commands_read_the_same_options_alike(flags):
    evaluate = ask.from_args(_parse(["evaluate", "SET", "--model", "fake:yes", "--out", "RUN", *flags]))
    export = ask.from_args(_parse(["export", "lmms-eval", "SET", "--out", "DIR", *flags]))
    assert evaluate == export
    if not flags:
        assert evaluate == ask.AskSettings() and evaluate.num_frames == 8 and evaluate.max_new_tokens == 32
        assert evaluate.do_sample is None and "do_sample" not in evaluate.generation_kwargs()


def test_auto_system_prompt_follows_evaluates_rule():
    keys = system_prompts(ask.AskSettings())
    assert keys["default"] is None  # the models without a supplementary prompt: none, as evaluate sends none
    for lmms_name, family in LMMS_EVAL_MODEL_NAMES.items():
        assert keys[lmms_name] == prompts.default_system_prompt(f"hf:some/{family}-7B") is not None
    assert system_prompts(ask.AskSettings(system_prompt="none")) == {"default": None}


def test_bad_settings_are_refused_before_anything_is_written(tiny_set, tmp_path, capsys):
    out = tmp_path / "lmms"
    for flags, says in (
        (["--num-frames", "-1"], "--num-frames"),
        (["--fps", "0"], "--fps"),
        (["--system-prompt", "@/no/such/file"], "no such file"),
        (["--temperature", "-1"], "--temperature"),
    ):
        assert main(["export", "lmms-eval", tiny_set, "--out", str(out), *flags]) == 2
        assert says in capsys.readouterr().err and not out.exists()


# ------------------------------------------------------------------------------------------ lmms-eval itself, if here
REPLAY_SCRIPT = r"""
import json, sys
from lmms_eval import evaluator
from lmms_eval.api.model import lmms
from lmms_eval.tasks import TaskManager

folder, replies_path, tasks, out = sys.argv[1], sys.argv[2], sys.argv[3].split(","), sys.argv[4]
replies = json.load(open(replies_path))
asked = []


class Replay(lmms):
    is_simple = False  # a chat model: it is handed doc_to_messages

    def generate_until(self, requests):
        answers = []
        for r in requests:
            ctx, doc_to_messages, gen_kwargs, doc_id, task, split = r.args
            doc = self.task_dict[task][split][doc_id]
            asked.append({"id": doc["id"], "task": task, "messages": doc_to_messages(doc), "gen_kwargs": gen_kwargs})
            answers.append(replies[doc["id"]])
        return answers

    def loglikelihood(self, requests):
        raise NotImplementedError

    def generate_until_multi_round(self, requests):
        raise NotImplementedError


manager = TaskManager(include_path=folder, model_name="replay")
res = evaluator.simple_evaluate(model=Replay(), tasks=tasks, task_manager=manager, log_samples=False, bootstrap_iters=0)
json.dump({"results": res["results"], "groups": res.get("groups", {}), "asked": asked}, open(out, "w"), default=str)
"""


def _lmms_python() -> str | None:
    named = os.environ.get("VOEBENCH_LMMS_EVAL_PYTHON")
    if named:
        return named if shutil.which(named) or os.path.isfile(named) else None
    return sys.executable if importlib.util.find_spec("lmms_eval") is not None else None


def test_lmms_eval_runs_the_groups_and_agrees_with_the_report(tiny_set, tmp_path, monkeypatch):
    python = _lmms_python()
    if python is None:
        pytest.skip("lmms-eval is not installed (set VOEBENCH_LMMS_EVAL_PYTHON to a Python that has it)")
    replies = _replies(tiny_set, tmp_path)
    records, rows, adapter_options = _evaluate(tiny_set, tmp_path, replies, SETTINGS, monkeypatch)
    out = tmp_path / "lmms"
    assert main(["export", "lmms-eval", tiny_set, "--out", str(out), *SETTINGS]) == 0
    groups = sorted(p.stem for p in (out / "groups").glob("*.yaml"))
    (tmp_path / "replies.json").write_text(json.dumps({k: v.strip() for k, v in replies.items()}))
    script = tmp_path / "replay_lmms.py"
    script.write_text(REPLAY_SCRIPT)
    result = tmp_path / "lmms_result.json"
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "HF_DATASETS_OFFLINE": "1", "HF_DATASETS_CACHE": str(tmp_path / "hf")}
    proc = subprocess.run(
        [python, str(script), str(out), str(tmp_path / "replies.json"), ",".join(groups), str(result)],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        timeout=600,
    )
    assert proc.returncode == 0 and result.exists(), proc.stderr[-3000:]
    got = json.loads(result.read_text())
    # every question asked once per task it is in, with evaluate's text, system prompt and generation settings
    for a in got["asked"]:
        rec = records[a["id"]]
        assert a["messages"][0] == {"role": "system", "content": [{"type": "text", "text": rec["system_prompt"]}]}
        assert a["messages"][1]["content"][1]["text"] == rec["turns"][0]["text"]
        gen = dict(a["gen_kwargs"])
        assert gen.pop("until") == [] and gen == {k: v for k, v in adapter_options.items() if v is not None}
    assert {a["id"] for a in got["asked"]} == set(records)
    results = got["results"]
    compared = []
    for (key, kind), row in rows.items():
        if "mean_acc" in row:  # a suite row: its group
            group = f"voebench_{_slug(key)}"
            metric = f"grasp_acc_{kind},none"
            assert results[group][metric] == pytest.approx(row["mean_acc"]), (group, kind)
            assert results[group][f"grasp_invalid_{kind},none"] == pytest.approx(row["invalid_rate"]), (group, kind)
            compared.append(group)
            if f"{group}_{kind}" in results:
                assert results[f"{group}_{kind}"]["grasp_acc,none"] == pytest.approx(row["mean_acc"])
                compared.append(f"{group}_{kind}")
        else:  # a test row: its task
            task = next(t for t in results if t.endswith("_" + _slug(key)) and f"grasp_acc_{kind},none" in results[t])
            assert results[task][f"grasp_acc_{kind},none"] == pytest.approx(row["acc"]), (task, kind)
            assert results[task][f"grasp_invalid_{kind},none"] == pytest.approx(row["invalid_rate"]), (task, kind)
            compared.append(task)
    assert set(groups) <= set(compared) and len(compared) == len(rows) + 2  # + the two Level 1 kind groups
    # the Level 1 group's pooled number mixes kinds; its per-kind ones are the report's rows (compared above)
    assert results["voebench_grasp_l1"]["grasp_acc_open,none"] != results["voebench_grasp_l1"]["grasp_acc_binary,none"]


def test_groups_list_tasks_of_the_folder_and_aggregate_as_the_report(tiny_set, tmp_path):
    """Read as lmms-eval 0.7.3 reads a group (api/group.py GroupConfig): `group`, `task` (names of tasks found under
    --include_path), `aggregate_metric_list` of unweighted means."""
    out = tmp_path / "lmms"
    assert main(["export", "lmms-eval", tiny_set, "--out", str(out)]) == 0
    tasks = {_yaml(p)["task"]: p for p in out.glob("*.yaml")}
    groups = {p.stem: _yaml(p) for p in (out / "groups").glob("*.yaml")}
    assert set(groups) == {
        "voebench_grasp_l1",
        "voebench_grasp_l1_binary",
        "voebench_grasp_l1_open",
        "voebench_grasp_l2",
        "voebench_avoe",
    }
    assert not set(groups) & set(tasks)  # one name space in lmms-eval
    for name, g in groups.items():
        assert g["group"] == name and g["task"] and set(g["task"]) <= set(tasks)
        assert g["aggregate_metric_list"] == [
            {"metric": m, "aggregation": "mean", "weight_by_size": False} for m in ("grasp_acc", "grasp_invalid")
        ]
    assert groups["voebench_grasp_l1"]["task"] == [
        "voebench_grasp_l1_directionality",
        "voebench_grasp_l1_movement",
        "voebench_grasp_l1_shape",
    ]
    assert groups["voebench_grasp_l1_open"]["task"] == [  # movement has no open question
        "voebench_grasp_l1_directionality_open",
        "voebench_grasp_l1_shape_open",
    ]
    for task in groups["voebench_grasp_l1_open"]["task"]:
        docs = (out / _yaml(tasks[task])["dataset_kwargs"]["data_files"]["test"]).read_text().splitlines()
        assert docs and {json.loads(d)["kind"] for d in docs} == {"open"}
    # a second export of fewer suites leaves no group of tasks it did not write
    assert main(["export", "lmms-eval", tiny_set, "--out", str(out), "--suite", "grasp-l2"]) == 0
    assert sorted(p.stem for p in (out / "groups").glob("*.yaml")) == ["voebench_grasp_l2"]


def test_names_that_would_collide_are_refused():
    from voebench.errors import UsageError  # noqa: PLC0415
    from voebench.evaluate.export.lmms_eval import _check_names  # noqa: PLC0415

    _check_names("v", [{"suite": "grasp-l1", "test": "shape"}, {"suite": "grasp-l2", "test": "t09_gravity"}])
    with pytest.raises(UsageError, match="v_a_b_c"):
        _check_names("v", [{"suite": "a-b", "test": "c"}, {"suite": "a_b", "test": "c"}])
