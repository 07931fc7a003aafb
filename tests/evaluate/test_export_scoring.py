"""Exports score as `voebench report` does (issue 26, items 3 and 4).

- `grasp-csv`: empty and whitespace-only answers are written as ``<empty>``, which GRASP's tools/compute_accuracy.py
  reads without crashing and counts invalid. `grasp_reading` below re-implements how that script reads a row
  (pandas turns an empty cell into NaN; the last `<SEP>` turn; the first whitespace token, lower-cased, ASCII
  punctuation stripped, against yes/no; open questions by whole-word keyword classes).
- `lmms-eval`: a Level 1 test's yes/no and open questions are scored under their own metrics
  (`grasp_acc_binary`, `grasp_acc_open`), equal to the report's rows per (test, kind) for a constant "yes".
"""

import csv
import importlib.util
import json
import math
import string

import pytest
import yaml

from voebench.cli import main
from voebench.evaluate.parsing import OPEN_CHOICES

_PUNCT = str.maketrans("", "", string.punctuation)
PANDAS_NA = {"", "NA", "N/A", "NaN", "nan", "null", "None", "n/a", "<NA>", "NULL", "#N/A", "-NaN", "-nan", "#NA"}
SCENE_TEST = {
    "Shape": "shape",
    "Direction": "directionality",
    "Movement": "movement",
    "P_Gravity": "t09_gravity",
    "IP_Gravity": "t09_gravity",
    "P_A1": "A1",
    "IP_A1": "A1",
}
SCENE_FAMILY = {"Shape": "shape", "Direction": "direction"}
CONFIG_KIND = {"level1-zero-shot": "binary", "level1-open": "open", "level2": "plausibility"}
LONG = "yes " + "and then the ball keeps rolling " * 400
REPLIES = [
    "",
    "   ",
    "\n\t",
    "{truth}.",
    "None",
    "NA",
    "No.",
    "A ball.",
    "left",
    LONG,
    " \u00a0",
]  # {truth}: the true answer


def grasp_reading(cell, scene: str, truth: str, open_question: bool) -> str:
    """GRASP's reading of one `response` cell: the answer it gives credit for, or "invalid". Crashes where GRASP's
    script does (a NaN cell has no .split; a whitespace-only turn has no first token)."""
    response = math.nan if cell in PANDAS_NA else cell  # pandas.read_csv's default NaN strings
    last = response.split("<SEP>")[-1]
    if not open_question:
        token = last.split()[0].lower().translate(_PUNCT)
        return token if token in ("yes", "no") else "invalid"
    words = {w.translate(_PUNCT) for w in last.lower().split()}
    named = [label for label, keys in OPEN_CHOICES[SCENE_FAMILY[scene]].items() if words & set(keys)]
    return named[0] if len(named) == 1 else "invalid"


def _run(tiny_set, tmp_path, model: str, strategy: str = "zero-shot") -> list[dict]:
    run = tmp_path / "run"
    argv = ["evaluate", tiny_set, "--model", model, "--out", str(run), "--strategy", strategy, "--repeats", "1"]
    assert main([*argv, "--no-progress"]) == 0
    assert main(["report", str(run)]) == 0
    return json.loads((run / "results.json").read_text())["tests"]


def test_grasp_reading_crashes_on_raw_empty_answers():
    # why the marker is needed: the raw cells crash GRASP's reading, as they crash its script
    with pytest.raises(AttributeError):
        grasp_reading("", "Movement", "yes", False)
    with pytest.raises(IndexError):
        grasp_reading("   ", "Movement", "yes", False)
    assert grasp_reading("<empty>", "Movement", "yes", False) == "invalid"
    assert grasp_reading("<empty>", "Shape", "ball", True) == "invalid"
    with pytest.raises(AttributeError):  # pandas reads "None" as NaN
        grasp_reading("None", "Shape", "ball", True)
    assert grasp_reading("<pandas-na>None", "Shape", "ball", True) == "invalid"
    assert grasp_reading("<pandas-na>NA", "Movement", "no", False) == "invalid"


@pytest.mark.parametrize("strategy", ["zero-shot", "open"])
def test_grasp_csv_empty_answers_agree_with_the_report(tiny_set, tmp_path, strategy):
    first = tmp_path / "first"
    first.mkdir()
    _run(tiny_set, first, "fake:yes", strategy)
    samples = [json.loads(line) for line in (first / "run" / "samples.jsonl").read_text().splitlines()]
    truth = {r["sample_id"]: r["truth"] for r in samples}
    ids = sorted(truth)
    replies = tmp_path / "replies.jsonl"
    replies.write_text(
        "".join(
            json.dumps({"sample_id": sid, "repeat": 0, "response": reply.format(truth=truth[sid])}) + "\n"
            for sid, reply in zip(ids, REPLIES * len(ids))
        )
    )
    rows = _run(tiny_set, tmp_path, f"replay:{replies}", strategy)
    folder = tmp_path / "grasp"
    assert main(["export", "grasp-csv", str(tmp_path / "run"), "--out", str(folder)]) == 0
    got: dict[tuple, list[tuple[bool, bool]]] = {}
    n_empty = n_na = 0
    for config, kind in CONFIG_KIND.items():
        if not (folder / config).exists():
            continue
        with open(folder / config / "results.csv", newline="", encoding="utf-8") as fh:
            for r in csv.DictReader(fh):
                n_empty += r["response"] == "<empty>"
                n_na += r["response"].startswith("<pandas-na>")
                parsed = grasp_reading(r["response"], r["scene"], r["gt"], kind == "open")
                got.setdefault((SCENE_TEST[r["scene"]], kind), []).append((parsed == r["gt"], parsed == "invalid"))
    n_blank = sum(not REPLIES[i % len(REPLIES)].strip() for i in range(len(ids)))  # "", "   ", "\n\t", " \u00a0"
    assert n_empty == n_blank > 0
    assert n_na == sum(reply in ("None", "NA") for _, reply in zip(ids, REPLIES * len(ids)))
    expected = {(row["test"], row["kind"]): row for row in rows}
    assert set(got) == set(expected)
    for key, outcomes in got.items():
        row = expected[key]
        assert len(outcomes) == row["n"], key
        assert sum(c for c, _ in outcomes) / len(outcomes) == pytest.approx(row["acc"]), key
        assert sum(i for _, i in outcomes) / len(outcomes) == pytest.approx(row["invalid_rate"]), key
    assert any(row["invalid_rate"] > 0 for row in rows) and any(row["acc"] > 0 for row in rows)


def test_lmms_eval_constant_yes_per_kind_equals_the_report(tiny_set, tmp_path):
    expected = {}
    for strategy in ("zero-shot", "open"):
        (tmp_path / strategy).mkdir()
        expected.update(
            {(row["test"], row["kind"]): row for row in _run(tiny_set, tmp_path / strategy, "fake:yes", strategy)}
        )
    out = tmp_path / "lmms"
    assert main(["export", "lmms-eval", tiny_set, "--out", str(out)]) == 0
    spec = importlib.util.spec_from_file_location("exported_utils_scoring", out / "utils.py")
    utils = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(utils)
    checked = set()
    for task_file in sorted(out.glob("voebench_*.yaml")):
        text = task_file.read_text().replace("!function ", "")
        cfg = yaml.safe_load(text)
        docs = [
            json.loads(line) for line in (out / cfg["dataset_kwargs"]["data_files"]["test"]).read_text().splitlines()
        ]
        per_metric: dict[str, list[float]] = {}
        for doc in docs:
            for metric, value in utils.process_results(doc, ["yes"]).items():
                per_metric.setdefault(metric, []).append(value)
        assert set(per_metric) == {m["metric"] for m in cfg["metric_list"]}  # every listed metric has values
        test = docs[0]["test"]
        kinds = {d["kind"] for d in docs}
        for kind in kinds:
            row = expected[(test, kind)]
            acc = per_metric[f"grasp_acc_{kind}"]
            assert len(acc) == row["n"] and sum(acc) / len(acc) == pytest.approx(row["acc"]), (test, kind)
            invalid = per_metric[f"grasp_invalid_{kind}"]
            assert sum(invalid) / len(invalid) == pytest.approx(row["invalid_rate"]), (test, kind)
            checked.add((test, kind))
    assert checked == set(expected)
    # Level 1 shape: yes/no at chance, every open answer invalid; the pooled number was neither
    assert expected[("shape", "binary")]["acc"] == pytest.approx(0.5)
    assert expected[("shape", "open")]["acc"] == 0.0
