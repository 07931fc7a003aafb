"""`voebench export lmms-eval` asks a model as `voebench evaluate` does, and its groups aggregate as the report does
(issue 26, items 1 and 2).

One model's answers are replayed through both paths: `voebench evaluate --model replay:` (then `voebench report`)
and the exported task folder's hooks (`doc_to_messages`, the YAML's `generation_kwargs`, `process_results`). Per
sample the question text, the system prompt, the frames shown and the generation settings must be identical, and
so must every score, per test and kind and per suite. Where lmms-eval itself is installed (here, or in the Python
named by $VOEBENCH_LMMS_EVAL_PYTHON, e.g. a venv with `pip install lmms-eval==0.7.3 'filelock<4'`), the same folder
is also loaded and run by lmms-eval's own task loader and evaluator with a replay model, and by its command line
(`python -m lmms_eval`, the replay model registered as a plugin) whose printed tables are read; otherwise those
two tests skip. CI's eval-only environment (`make test-eval-only`) installs lmms-eval, so they run there.
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
    from voebench.evaluate import models

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
    from voebench.cli import build_parser

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


# only the exported folder: indexing lmms-eval's ~340 built-in task folders took 38 s here and is not what is tested
manager = TaskManager(include_path=folder, model_name="replay", include_defaults=False)
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
    from voebench.errors import UsageError
    from voebench.evaluate.export.lmms_eval import _check_names

    _check_names("v", [{"suite": "grasp-l1", "test": "shape"}, {"suite": "grasp-l2", "test": "t09_gravity"}])
    with pytest.raises(UsageError, match="v_a_b_c"):
        _check_names("v", [{"suite": "a-b", "test": "c"}, {"suite": "a_b", "test": "c"}])


# --------------------------------------------------------------------------- lmms-eval's own command line, if here
# The replay model as a plugin lmms-eval 0.7.3 finds by itself: a module and a dist-info with an entry point in the
# group `lmms_eval.models` (its ModelRegistryV2 loads every such manifest at import), on PYTHONPATH. So the real
# `python -m lmms_eval` command line runs it, with no code of ours in its process but this model.
PLUGIN_MODULE = r'''
import json

from lmms_eval.api.model import lmms
from lmms_eval.models.registry_v2 import ModelManifest


class Replay(lmms):
    """Answers each question with the reply recorded for its sample id (model_args: replies=<json file>)."""

    is_simple = False  # a chat model: handed doc_to_messages, as a VLM wrapper is

    def __init__(self, replies: str, **kwargs) -> None:
        super().__init__()
        with open(replies, encoding="utf-8") as fh:
            self.replies = json.load(fh)

    def generate_until(self, requests):
        out = []
        for r in requests:
            _, _, _, doc_id, task, split = r.args
            out.append(self.replies[self.task_dict[task][split][doc_id]["id"]])
        return out

    def loglikelihood(self, requests):
        raise NotImplementedError

    def generate_until_multi_round(self, requests):
        raise NotImplementedError


def manifest():
    return ModelManifest(model_id="voebench_replay", chat_class_path="voebench_lmms_replay.Replay")
'''


def _level2_set(root) -> str:
    """A Level 2 set of three tests of 1, 2 and 3 pairs (so a group's unweighted mean differs from the pooled one)."""
    from contract_fixtures import complete_entry, write_dataset
    from evaluate_fixtures import FPS, H, L2_PROMPT, T, W, write_h5, write_mp4

    from voebench.contract import manifest as mf

    entries = []
    for n_pairs, test in enumerate(("t01_unchangeableness", "t05_permanence_pin", "t09_gravity"), start=1):
        os.makedirs(os.path.join(root, "grasp-l2", test))
        for i in range(n_pairs):
            for cond in ("plausible", "implausible"):
                stem = f"grasp-l2/{test}/{i:05d}-{cond}"
                e = {
                    "id": stem,
                    "suite": "grasp-l2",
                    "test": test,
                    "index": i,
                    "condition": cond,
                    "pair_id": f"grasp-l2/{test}/{i:05d}",
                    "seed": len(entries),
                    "video": f"{stem}.mp4",
                    "states": f"{stem}.h5",
                    "n_frames": T,
                    "fps": FPS,
                    "width": W,
                    "height": H,
                    "prompts": [
                        {"kind": "plausibility", "text": L2_PROMPT, "answer": "yes" if cond == "plausible" else "no"}
                    ],
                    "description": f"A scene of {test}, {cond}.",
                    "violation": None if cond == "plausible" else {"principles": ["gravity"], "kind": "teleport"},
                    "params": {"sampled": {}, "config": {}},
                    "test_number": int(test[1:3]),
                }
                write_mp4(os.path.join(root, e["video"]), len(entries))
                write_h5(os.path.join(root, e["states"]), e)
                entries.append(complete_entry(e))
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    write_dataset(root)
    return str(root)


def _markdown_rows(stdout: str, first_column: str) -> dict[tuple[str, str], float]:
    """(task or group name, metric) -> value, from the table lmms-eval prints whose first header is `first_column`
    (utils.make_table: `|name|filter|n-shot|metric|arrow|value|±|stderr|`; a subtask's name is indented with `-`)."""
    rows: dict[tuple[str, str], float] = {}
    table, name = False, ""
    for line in stdout.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not line.startswith("|"):
            table = False
            continue
        if cells[0] == first_column:
            table = True
            continue
        if not table or set(cells[0]) <= set("-:"):
            continue
        name = cells[0].lstrip("- ").strip() or name  # a task's second metric row leaves the name empty
        rows[(name, cells[3])] = float(cells[5])
    return rows


def test_lmms_eval_command_line_prints_the_reports_numbers(tmp_path):
    """`python -m lmms_eval --tasks voebench_grasp_l2 --include_path <export>` with a model that replays recorded
    answers prints a row per test and a group row, each equal to `voebench report` on the same answers."""
    python = _lmms_python()
    if python is None:
        pytest.skip("lmms-eval is not installed (set VOEBENCH_LMMS_EVAL_PYTHON to a Python that has it)")
    dataset = _level2_set(tmp_path / "set")
    from voebench.contract import manifest as mf

    replies = {}
    for e in mf.read_manifest(os.path.join(dataset, mf.NAME), truncated="error"):
        if e["test"].startswith("t01"):  # one right of two
            reply = "Yes."
        elif e["test"].startswith("t05"):  # all right
            reply = "yes" if e["condition"] == "plausible" else "no"
        else:  # t09: the plausible ones wrong, one empty answer (invalid)
            reply = "" if (e["index"], e["condition"]) == (1, "implausible") else "No."
        replies[f"{e['id']}#plausibility"] = reply
    file = tmp_path / "replies.jsonl"
    file.write_text("".join(json.dumps({"sample_id": k, "response": v}) + "\n" for k, v in replies.items()))
    run = tmp_path / "run"
    argv = ["evaluate", dataset, "--model", f"replay:{file}", "--out", str(run), "--repeats", "1", "--no-progress"]
    assert main(argv) == 0 and main(["report", str(run)]) == 0
    report = json.loads((run / "results.json").read_text())
    tests = {r["test"]: r for r in report["tests"]}
    suite = next(s for s in report["suites"] if s["suite"] == "grasp-l2")
    out = tmp_path / "lmms"
    assert main(["export", "lmms-eval", dataset, "--out", str(out)]) == 0

    plugin = tmp_path / "plugin"
    (plugin / "voebench_lmms_replay-0.0.dist-info").mkdir(parents=True)
    (plugin / "voebench_lmms_replay.py").write_text(PLUGIN_MODULE)
    (plugin / "voebench_lmms_replay-0.0.dist-info" / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: voebench-lmms-replay\nVersion: 0.0\n"
    )
    (plugin / "voebench_lmms_replay-0.0.dist-info" / "entry_points.txt").write_text(
        "[lmms_eval.models]\nvoebench_replay = voebench_lmms_replay:manifest\n"
    )
    (tmp_path / "replies.json").write_text(json.dumps({k: v.strip() for k, v in replies.items()}))
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(plugin), *filter(None, [os.environ.get("PYTHONPATH")])]),
        "HF_HUB_OFFLINE": "1",
        "HF_DATASETS_OFFLINE": "1",
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_DATASETS_CACHE": str(tmp_path / "hf"),
    }
    cmd = [python, "-m", "lmms_eval", "--model", "voebench_replay", "--model_args", f"replies={tmp_path}/replies.json"]
    cmd += ["--tasks", "voebench_grasp_l2", "--include_path", str(out), "--output_path", str(tmp_path / "results")]
    cmd += ["--verbosity", "DEBUG"]  # lmms-eval exits 0 on a failure unless DEBUG (it then re-raises)
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env, cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, (proc.stdout[-2000:], proc.stderr[-3000:])
    tasks = _markdown_rows(proc.stdout, "Tasks")
    groups = _markdown_rows(proc.stdout, "Groups")
    for test, row in tests.items():
        name = f"voebench_grasp_l2_{_slug(test)}"
        assert tasks[(name, "grasp_acc")] == pytest.approx(row["acc"], abs=5e-5), test
        assert tasks[(name, "grasp_invalid")] == pytest.approx(row["invalid_rate"], abs=5e-5), test
    assert sorted(n for n, m in tasks if m == "grasp_acc" and n != "voebench_grasp_l2") == sorted(
        f"voebench_grasp_l2_{_slug(t)}" for t in tests
    )
    assert groups[("voebench_grasp_l2", "grasp_acc")] == pytest.approx(suite["mean_acc"], abs=5e-5)
    assert groups[("voebench_grasp_l2", "grasp_invalid")] == pytest.approx(suite["invalid_rate"], abs=5e-5)
    # the three tests score 0.5, 1 and 1/3: the group is their unweighted mean, as the report's, not the pooled 7/12
    assert [tests[t]["acc"] for t in sorted(tests)] == pytest.approx([0.5, 1.0, 1 / 3])
    assert suite["mean_acc"] == pytest.approx(11 / 18)
