"""`voebench export hf-dataset` (issue 26): a folder Hugging Face `datasets` loads offline, one config per suite and
per test, whose rows are the set's manifest (question, answer, condition, pair, parameters, video and states files);
a dataset card whose YAML header the hub's own parser reads; refusals and atomic replacement.

The loading test needs `datasets` (the `hf` extra; CI's eval-only environment installs it) and skips without it;
it loads in a subprocess, so HF_DATASETS_OFFLINE / HF_HUB_OFFLINE and a cache under tmp are in force from import.
"""

from __future__ import annotations

import filecmp
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from voebench.cli import main
from voebench.contract import manifest as mf

LOAD_SCRIPT = r"""
import json, sys
from datasets import get_dataset_config_names, load_dataset

folder, out = sys.argv[1], sys.argv[2]
names = get_dataset_config_names(folder)
got = {"names": names, "configs": {}, "dtypes": {}}
for name in [None, *names]:
    loaded = load_dataset(folder) if name is None else load_dataset(folder, name)
    got["configs"][name or ""] = {split: [dict(row) for row in ds] for split, ds in loaded.items()}
    ds = next(iter(loaded.values()))
    got["dtypes"][name or ""] = {c: ds.features[c].dtype for c in ds.column_names}
json.dump(got, open(out, "w"))
"""


def _entries(root) -> list[dict]:
    return mf.read_manifest(os.path.join(root, mf.NAME), truncated="error")


def _with_splits(tiny_set, tmp_path) -> str:
    """The tiny set (Level 1, Level 2, AVoE) with AVoE's first pair in `train`, so a config has two splits."""
    root = tmp_path / "set"
    shutil.copytree(tiny_set, root)
    entries = _entries(root)
    for e in entries:
        if e["suite"] == "avoe" and e["index"] == 0:
            e["split"] = "train"
    os.remove(root / mf.NAME)
    mf.write_manifest(str(root / mf.NAME), entries)
    return str(root)


def _load(folder, tmp_path) -> dict:
    script = tmp_path / "load_hf.py"
    script.write_text(LOAD_SCRIPT)
    out = tmp_path / "loaded.json"
    env = {
        **os.environ,
        "HF_DATASETS_OFFLINE": "1",
        "HF_HUB_OFFLINE": "1",
        "HF_HOME": str(tmp_path / "hf-home"),
        "HF_DATASETS_CACHE": str(tmp_path / "hf-cache"),
    }
    proc = subprocess.run(
        [sys.executable, str(script), str(folder), str(out)], capture_output=True, text=True, env=env, timeout=300
    )
    assert proc.returncode == 0, proc.stderr[-3000:]
    return json.loads(out.read_text())


def _check_rows(rows: list[dict], entries: list[dict], src, folder) -> None:
    """Every row is one question of a manifest entry, as the manifest says it; every question of `entries` is there."""
    by_id = {e["id"]: e for e in entries}
    seen: dict[str, int] = {}
    for r in rows:
        e = by_id[r["video_id"]]
        seen[e["id"]] = seen.get(e["id"], 0) + 1
        assert (r["suite"], r["test"], r["index"], r["condition"]) == (
            e["suite"],
            e["test"],
            e["index"],
            e["condition"],
        )
        assert r["pair_id"] == (e["pair_id"] or "") and r["split"] == e.get("split", "test")
        assert json.loads(r["parameters"]) == e["params"] and r["seed"] == e["seed"]
        assert (r["violation"] and json.loads(r["violation"])) == (e["violation"] or "")
        assert filecmp.cmp(folder / r["video"], src / e["video"], shallow=False)
        assert filecmp.cmp(folder / r["states"], src / e["states"], shallow=False)
        assert (r["n_frames"], r["fps"], r["width"], r["height"]) == (e["n_frames"], e["fps"], e["width"], e["height"])
        asked = [p for p in e["prompts"] if p["text"] == r["question"]]
        assert len(asked) == 1, (r["id"], r["question"])
        p = asked[0]
        assert (r["answer"], r["kind"]) == (str(p["answer"]), p["kind"])
        assert (json.loads(r["choices"]) if r["choices"] else None) == p.get("choices")
    assert seen == {e["id"]: max(1, len(e["prompts"])) for e in entries}
    assert len({r["id"] for r in rows}) == len(rows)  # the sample ids are unique


def test_every_suite_loads_offline_and_equals_the_manifest(tiny_set, tmp_path):
    pytest.importorskip("datasets")
    from test_export_parser import make_newton_set

    sets = {"tiny": _with_splits(tiny_set, tmp_path), "newton": make_newton_set(tmp_path / "newton")}
    for label, src in sets.items():
        folder = tmp_path / f"hf-{label}"
        assert main(["export", "hf-dataset", src, "--out", str(folder)]) == 0
        entries = _entries(src)
        (tmp_path / f"load-{label}").mkdir()
        got = _load(folder, tmp_path / f"load-{label}")
        suites = sorted({e["suite"] for e in entries})
        tests = sorted({(e["suite"], e["test"]) for e in entries})
        assert sorted(got["names"]) == sorted(["all", *suites, *(f"{s}_{t}" for s, t in tests)])
        scopes = {"": entries, "all": entries}
        scopes |= {s: [e for e in entries if e["suite"] == s] for s in suites}
        scopes |= {f"{s}_{t}": [e for e in entries if (e["suite"], e["test"]) == (s, t)] for s, t in tests}
        for name, scope in scopes.items():
            splits = got["configs"][name]
            assert sorted(splits) == sorted({e.get("split", "test") for e in scope}), name
            for split, rows in splits.items():
                assert {r["split"] for r in rows} == {split}
            _check_rows([r for rows in splits.values() for r in rows], scope, Path(src), folder)
            dtypes = got["dtypes"][name]
            assert dtypes["index"] == "int64" and dtypes["fps"] == "float64" and dtypes["question"] == "string"
    # a newton video asks five choice questions: five rows
    assert len(got["configs"]["newton"]["test"]) == sum(len(e["prompts"]) for e in _entries(sets["newton"])) == 15


def test_the_card_header_reads_with_huggingface_hub(tiny_set, tmp_path):
    hub = pytest.importorskip("huggingface_hub")
    import yaml

    folder = tmp_path / "hf"
    assert main(["export", "hf-dataset", tiny_set, "--out", str(folder)]) == 0
    card = hub.DatasetCard.load(folder / "README.md", ignore_metadata_errors=False)
    data = card.data.to_dict()
    assert data["license"] == "mit" and "video-text-to-text" in data["task_categories"]
    assert {"violation-of-expectation", "grasp-l1", "grasp-l2", "avoe"} <= set(data["tags"])
    configs = {c["config_name"]: c for c in data["configs"]}
    assert configs["all"]["default"] is True and sum(bool(c.get("default")) for c in configs.values()) == 1
    assert set(configs) == {
        "all",
        "avoe",
        "grasp-l1",
        "grasp-l2",
        "avoe_A1",
        "grasp-l1_directionality",
        "grasp-l1_movement",
        "grasp-l1_shape",
        "grasp-l2_t09_gravity",
    }
    for c in configs.values():  # every data file a config names is in the folder
        for part in c["data_files"]:
            assert part["path"] and all((folder / p).is_file() for p in part["path"])
    assert configs["grasp-l1"]["data_files"] == [
        {"split": "test", "path": [f"data/grasp-l1/{t}/test.jsonl" for t in ("directionality", "movement", "shape")]}
    ]
    # the header is the card's whole YAML (RepoCard splits at the same markers) and the body cites the papers
    text = (folder / "README.md").read_text()
    assert yaml.safe_load(text.split("---\n")[1]) == data
    assert (
        "arXiv:2311.09048" in card.text
        and "arXiv:2111.08826" in card.text
        and "NEWTON" not in card.text.split("```bibtex")[1]
    )
    record = json.loads((folder / "voebench_export.json").read_text())
    assert record["written_by"] == "voebench" and record["rows"] == 24 and record["videos"] == 14


def test_the_card_records_the_fingerprints_of_a_rendered_set(tmp_path):
    from voebench.evaluate.export import hf_card

    dataset = {"suites": {"grasp-l2": {"identity": {"fps": 25, "code": {"core": "abc123", "tests": {"t01": "f00"}}}}}}
    text = hf_card._identity(dataset, "grasp-l2", ["t01", "t02"])
    assert '"fps": 25' in text and "`abc123`" in text and "| t01 | `f00` |" in text and "| t02 | `-` |" in text
    assert "records no identity" in hf_card._identity({"suites": {}}, "grasp-l2", ["t01"])
    assert [hf_card.size_category(n) for n in (0, 999, 1000, 25_000)] == ["n<1K", "n<1K", "1K<n<10K", "10K<n<100K"]


def test_bad_input_is_one_line_and_changes_nothing(tiny_set, tmp_path, capsys):
    foreign = tmp_path / "mine"
    foreign.mkdir()
    (foreign / "notes.txt").write_text("mine")
    states_only = tmp_path / "states-only"
    shutil.copytree(tiny_set, states_only)
    entries = _entries(states_only)
    entries[0]["video"] = None
    os.remove(states_only / mf.NAME)
    mf.write_manifest(str(states_only / mf.NAME), entries)
    new = tmp_path / "new"
    cases = [
        ([tiny_set, "--out", str(foreign)], "did not write"),
        ([tiny_set, "--out", str(foreign / "notes.txt")], "not a directory"),
        ([str(states_only), "--out", str(new)], "no mp4"),
        ([tiny_set, "--out", str(new), "--suite", "nope"], "--suite nope"),
        ([str(tmp_path / "no-set"), "--out", str(new)], "not a rendered set"),
        ([tiny_set, "--out", str(new), "--copy-videos", "--num-frames", "4"], "--copy-videos, --num-frames do not"),
    ]
    for argv, says in cases:
        assert main(["export", "hf-dataset", *argv]) == 2
        err = capsys.readouterr().err.strip()
        assert says in err and "\n" not in err, err
    assert sorted(os.listdir(foreign)) == ["notes.txt"] and not new.exists()
    assert sorted(os.listdir(tmp_path)) == ["mine", "states-only"]  # no temporary folder left behind


def test_a_re_export_replaces_the_earlier_one_whole_or_not_at_all(tiny_set, tmp_path, monkeypatch, capsys):
    from voebench.evaluate.export import hf_dataset

    out = tmp_path / "hf"
    assert main(["export", "hf-dataset", tiny_set, "--out", str(out)]) == 0
    before = {p: p.read_bytes() for p in out.rglob("*") if p.is_file()}
    # a failure half-way (here the 5th file copied) leaves the earlier export as it was, and no temporary folder
    real, calls = shutil.copy2, []

    def failing(src, dst, **kw):
        calls.append(dst)
        if len(calls) == 5:
            raise OSError(28, "No space left on device")
        return real(src, dst, **kw)

    monkeypatch.setattr(hf_dataset.shutil, "copy2", failing)
    with pytest.raises(OSError):
        hf_dataset.export_hf_dataset(tiny_set, str(out), suites=["grasp-l2"])
    monkeypatch.undo()
    assert {p: p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert sorted(os.listdir(tmp_path)) == ["hf"]
    # a narrower export replaces it whole: nothing of the other suites stays
    assert main(["export", "hf-dataset", tiny_set, "--out", str(out), "--suite", "grasp-l2"]) == 0
    assert sorted(os.listdir(out / "data")) == ["grasp-l2"] and sorted(os.listdir(out / "videos")) == ["grasp-l2"]
    assert sorted(os.listdir(tmp_path)) == ["hf"]
    # a file the user added to an export would be deleted by the next one: refused, naming it
    (out / "my-notes.md").write_text("keep")
    assert main(["export", "hf-dataset", tiny_set, "--out", str(out)]) == 2
    assert "my-notes.md" in capsys.readouterr().err and sorted(os.listdir(out / "data")) == ["grasp-l2"]


def test_config_names_that_would_collide_or_a_hub_refuses_are_refused():
    from voebench.errors import UsageError
    from voebench.evaluate.export.hf_dataset import config_names

    ok = config_names([{"suite": "grasp-l1", "test": "shape"}, {"suite": "avoe", "test": "A1"}])
    assert ok == {("avoe", "A1"): "avoe_A1", ("grasp-l1", "shape"): "grasp-l1_shape"}
    with pytest.raises(UsageError, match="x_y_z"):
        config_names([{"suite": "x", "test": "y_z"}, {"suite": "x_y", "test": "z"}])
    with pytest.raises(UsageError, match="collide"):
        config_names([{"suite": "all", "test": "t"}])
    with pytest.raises(UsageError, match="hub"):
        config_names([{"suite": "s", "test": "a b"}])


def _frame_count(path) -> int:
    import imageio.v2 as iio

    reader = iio.get_reader(str(path), format="FFMPEG")
    try:
        return sum(1 for _ in reader)
    finally:
        reader.close()


def test_a_predict_set_loads_and_its_prediction_rows_show_only_the_clip_before_the_cut(tmp_path):
    """The predict suite's `prediction` kind (issue 26): every row loads offline with its question, its answer (the
    outcome as a sentence) and the `prediction` record; the video a row names is what a harness shows the model,
    so a prediction row names the clip up to the cut (frames 0..cut_frame, as `voebench predict` shows it): the
    whole video holds the answer. The whole video stays in the folder, under videos/, for reference."""
    pytest.importorskip("datasets")
    import numpy as np
    from contract_fixtures import write_dataset
    from evaluate_fixtures import write_h5, write_mp4
    from test_predict_eval import N_FRAMES, SCENES, predict_entry

    from voebench.evaluate.frames import read_frames

    src = tmp_path / "predict-set"
    (src / "predict" / "collisions").mkdir(parents=True)
    entries = [predict_entry(i, labels, pairs) for i, (labels, pairs) in enumerate(SCENES)]
    for e in entries:
        write_mp4(str(src / e["video"]), e["index"], n=N_FRAMES)
        write_h5(str(src / e["states"]), e)
    mf.write_manifest(str(src / mf.NAME), entries)
    write_dataset(str(src))
    folder = tmp_path / "hf"
    assert main(["export", "hf-dataset", str(src), "--out", str(folder)]) == 0
    (tmp_path / "load").mkdir()
    got = _load(folder, tmp_path / "load")
    assert sorted(got["names"]) == ["all", "predict", "predict_collisions"]
    rows = got["configs"]["predict_collisions"]["test"]
    assert rows == got["configs"]["predict"]["test"] == got["configs"]["all"]["test"] == got["configs"][""]["test"]
    assert got["dtypes"]["predict"]["n_frames"] == "int64" and got["dtypes"]["predict"]["answer"] == "string"
    by_id = {e["id"]: e for e in entries}
    assert sorted(r["video_id"] for r in rows) == sorted(by_id)  # one question per video: one row each
    for r in rows:
        e = by_id[r["video_id"]]
        pred = e["prediction"]
        assert (r["id"], r["kind"], r["polarity"], r["choices"]) == (f"{e['id']}#prediction", "prediction", "", "")
        assert (r["question"], r["answer"]) == (e["prompts"][0]["text"], pred["answer"])
        assert (r["condition"], r["pair_id"], r["split"]) == (pred["outcome"], "", "test")
        assert json.loads(r["extra"])["prediction"] == pred
        assert filecmp.cmp(folder / r["states"], src / e["states"], shallow=False)
        assert filecmp.cmp(folder / "videos" / e["video"], src / e["video"], shallow=False)  # the whole video
        # the clip: frames 0..cut, each the video's own frame (re-encoded: nearest, not byte-equal), none after it
        cut = pred["cut_frame"]
        assert r["video"] == f"clips/{e['video']}" and (r["n_frames"], r["fps"]) == (cut + 1, e["fps"])
        assert _frame_count(folder / r["video"]) == cut + 1 < N_FRAMES
        clip = read_frames(str(folder / r["video"]), list(range(cut + 1))).astype(float)
        full = read_frames(str(src / e["video"]), list(range(N_FRAMES))).astype(float)
        nearest = [int(np.argmin([np.abs(f - g).mean() for g in full])) for f in clip]
        assert nearest == list(range(cut + 1))
    record = json.loads((folder / "voebench_export.json").read_text())
    assert record["rows"] == record["videos"] == len(SCENES)


def test_a_prediction_question_without_a_cut_inside_its_video_is_refused():
    from test_predict_eval import SCENES, predict_entry

    from voebench.errors import UsageError
    from voebench.evaluate.export.hf_dataset import rows_of

    entry = predict_entry(0, *SCENES[0])
    assert rows_of(entry)[0]["n_frames"] == entry["prediction"]["cut_frame"] + 1
    for cut in (None, -1, entry["n_frames"], True):
        bad = {**entry, "prediction": {**entry["prediction"], "cut_frame": cut}}
        with pytest.raises(UsageError, match="prediction.cut_frame inside the video"):
            rows_of(bad)
