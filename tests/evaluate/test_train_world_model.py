"""`voebench train-world-model`: train a tiny V-JEPA 2 through the command line on a tiny fake set, score the saved
folder with `voebench evaluate --model vjepa2:`, and the refusals (one line, exit 2, nothing written)."""

from __future__ import annotations

import json
import os

import pytest
from test_surprise import SMALL, make_paired_set

from voebench.contract import manifest as mf

pytest.importorskip("torch")
pytest.importorskip("transformers")

PROTOCOL = ["--window", "8", "--context-lengths", "2,4,6", "--frame-step", "1"]


@pytest.fixture(scope="module")
def sets(tmp_path_factory) -> dict[str, str]:
    root = tmp_path_factory.mktemp("wm-sets")
    return {
        "test": make_paired_set(str(root / "test"), pairs=2, seed0=0),
        "train": make_paired_set(str(root / "train"), pairs=2, seed0=100),
    }


def _train(data: str, out: str, *extra: str) -> int:
    from voebench.cli import main

    return main(
        [
            "train-world-model",
            data,
            "--out",
            out,
            "--size",
            "tiny",
            "--steps",
            "3",
            "--batch-size",
            "2",
            "--device",
            "cpu",
            *PROTOCOL,
            *extra,
        ]
    )


def test_train_through_the_cli_then_evaluate_the_folder(sets, tmp_path, capsys):
    from voebench.cli import main

    model = str(tmp_path / "models" / "wm")
    assert _train(sets["train"], model, "--test-set", sets["test"]) == 0  # with the progress bar
    log = json.load(open(os.path.join(model, "train.json")))
    assert log["steps"] == 3 and log["videos"] == 2 and log["written_by"] == "voebench train-world-model"
    assert log["protocol"]["window"] == 8 and log["test_sets_checked"] == [os.path.abspath(sets["test"])]
    assert os.listdir(tmp_path / "models") == ["wm"]  # no temp folder left beside it
    err = capsys.readouterr().err
    assert "step/s" in err or "s/step" in err  # the progress bar
    # the printed evaluate command names the training windows, and a fixed context among them
    assert "--window 8 --context-lengths 2,4,6 --fixed-context 6 --frame-step 1" in err

    run = str(tmp_path / "run")
    assert (
        main(
            [
                "evaluate",
                sets["test"],
                "--model",
                f"vjepa2:{model}",
                "--out",
                run,
                "--no-progress",
                "--device",
                "cpu",
                *SMALL,
            ]
        )
        == 0
    )
    res = json.load(open(os.path.join(run, "results.json")))
    assert res["tests"][0]["pairs"] == 2 and res["run"]["model"]["kind"] == "vjepa2"

    # a folder this command wrote may be replaced; the new run's weights take its place
    before = os.path.getmtime(os.path.join(model, "train.json"))
    assert _train(sets["train"], model, "--no-progress", "--steps", "2") == 0
    assert json.load(open(os.path.join(model, "train.json")))["steps"] == 2
    assert os.path.getmtime(os.path.join(model, "train.json")) >= before
    assert os.listdir(tmp_path / "models") == ["wm"]


def test_refusals_exit_2_and_write_nothing(sets, tmp_path, capsys):
    out = str(tmp_path / "wm")
    # not a rendered set
    os.makedirs(tmp_path / "empty")
    assert _train(str(tmp_path / "empty"), out, "--no-progress") == 2
    # a set with no plausible video
    only_violations = make_paired_set(str(tmp_path / "violations"), pairs=1, seed0=200)
    path = os.path.join(only_violations, mf.NAME)
    entries = [e for e in mf.read_manifest(path) if e["condition"] != "plausible"]
    mf.write_manifest(path, entries)
    assert _train(only_violations, out, "--no-progress") == 2
    # the training set shares trial seeds with a test set
    assert _train(sets["test"], out, "--no-progress", "--test-set", sets["train"], "--test-set", sets["test"]) == 2
    # bad numbers and a protocol the model cannot run
    assert _train(sets["train"], out, "--no-progress", "--steps", "0") == 2
    assert _train(sets["train"], out, "--no-progress", "--context-lengths", "3") == 2
    assert not os.path.exists(out)
    # an existing folder voebench did not write is left alone
    os.makedirs(out)
    with open(os.path.join(out, "notes.txt"), "w") as fh:
        fh.write("mine")
    assert _train(sets["train"], out, "--no-progress") == 2
    assert os.listdir(out) == ["notes.txt"]
    assert sorted(os.listdir(tmp_path)) == ["empty", "violations", "wm"]  # no temp folder left
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 6 and all(line.startswith("voebench train-world-model: error: ") for line in err), err
