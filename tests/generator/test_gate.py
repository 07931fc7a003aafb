"""The generation gate (generator/trial.py, generator/feasibility.py) on a tiny paired suite whose bad draws are
known (tests/fake_suite.py): invalid draws are redrawn, deterministically whatever the workers; the attempts are
recorded; an infeasible space is refused before anything is written; a pair is made whole."""

from __future__ import annotations

import json
import os

import h5py
import pytest

from voebench.errors import UsageError
from voebench.generator.runner import RunConfig, run
from voebench.generator.suite import register_suite
from voebench.generator.trial import attempt_seed

register_suite("fake", "fake_suite:FakeSuite")


def config(out, **kw) -> RunConfig:
    base = dict(
        out=str(out),
        suite="fake",
        tests=["ball"],
        trials=12,
        seconds=1,
        fps=10,
        width=32,
        height=24,
        passes=(),
        workers=1,
    )
    return RunConfig(**{**base, **kw})


def tree_bytes(root) -> dict:
    out = {}
    for d, _, files in os.walk(root):
        for f in files:
            p = os.path.join(d, f)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = fh.read()
    return out


def manifest(out) -> list[dict]:
    with open(os.path.join(out, "manifest.jsonl")) as f:
        return [json.loads(line) for line in f]


def test_bad_draws_are_redrawn_and_recorded(tmp_path):
    result = run(config(tmp_path / "a"), progress=False)
    assert not result.failed and result.done == 24
    entries = manifest(tmp_path / "a")
    kinds = set()
    for e in entries:
        p = e["params"]["sampled"]
        assert p["size"] <= 0.5 and p["lift"] <= 0.8, e["id"]  # no kept draw is a bad one
        assert len(e["rejected"]) == e["attempt"]
        kinds |= {r["kind"] for r in e["rejected"]}
        with h5py.File(tmp_path / "a" / e["states"]) as f:
            assert int(f.attrs["attempt"]) == e["attempt"]
    # both kinds of bad draw happened in these 12 trials and were redrawn
    assert kinds == {"infeasible", "audit:falls_when_unsupported"}
    assert any(e["attempt"] > 0 for e in entries)
    acceptance = json.loads((tmp_path / "a" / "dataset.json").read_text())["suites"]["fake"]["acceptance"]["ball"]
    assert acceptance["trials"] == 12
    assert acceptance["draws"] == sum(e["attempt"] + 1 for e in entries) // 2
    assert acceptance["acceptance"] == round(12 / acceptance["draws"], 4)


def test_redraws_are_the_same_bytes_whatever_the_workers_and_shards(tmp_path):
    run(config(tmp_path / "one"), progress=False)
    run(config(tmp_path / "two", workers=2), progress=False)
    for i in range(3):
        run(config(tmp_path / "shards", shard=(i, 3)), progress=False)
    from voebench.generator.output import merge

    merge(str(tmp_path / "shards"))
    one, two, shards = (tree_bytes(tmp_path / d) for d in ("one", "two", "shards"))
    h5 = sorted(k for k in one if k.endswith(".h5"))
    assert h5 and all(one[k] == two[k] == shards[k] for k in h5)
    assert one["manifest.jsonl"] == two["manifest.jsonl"] == shards["manifest.jsonl"]


def test_attempt_seeds_differ_and_attempt_zero_is_the_trial_seed():
    assert attempt_seed(123, 0) == 123
    seeds = {attempt_seed(123, k) for k in range(100)}
    assert len(seeds) == 100


def test_infeasible_space_is_refused_before_anything_is_written(tmp_path):
    out = tmp_path / "never"
    with pytest.raises(UsageError) as e:
        run(config(out, overrides={"ball": {"size": "0.55:0.7"}}), progress=False)
    msg = str(e.value)
    assert "\n" not in msg
    assert "fake/ball: only 0 of" in msg and "draws can be honoured" in msg and "involves size" in msg
    assert "size at its default 0.2:0.7" in msg  # the user's own change, undone, would work
    assert not out.exists()


def test_a_partial_pair_is_made_again_whole_and_identical(tmp_path):
    out = tmp_path / "set"
    run(config(out, trials=3), progress=False)
    before = tree_bytes(out)
    os.remove(out / "fake" / "ball" / "00001-implausible.h5")  # a kill between the two renames of a pair
    result = run(config(out, trials=3), progress=False)
    assert result.done == 2 and result.skipped == 4  # the whole trial was made again, nothing else
    after = tree_bytes(out)
    assert {k: v for k, v in after.items() if k != "dataset.json"} == {
        k: v for k, v in before.items() if k != "dataset.json"
    }


def h5_content(path) -> dict:
    """Every object's attributes and every dataset's values, by name (the file's layout bytes aside)."""
    out = {}
    with h5py.File(path, "r") as f:
        f.visititems(lambda n, o: out.update({n: o[()].tobytes()}) if isinstance(o, h5py.Dataset) else None)
        f.visititems(lambda n, o: out.update({f"{n}@{k}": str(v) for k, v in o.attrs.items()}))
        out.update({f"@{k}": str(v) for k, v in f.attrs.items()})
    return out


def test_one_video_of_a_pair_is_made_alone_from_the_same_draw(tmp_path):
    """runner.produce_video (benchmarks time one video) restricts the trial to one video, but the gate still sees
    the draw's whole pair of conditions, so it keeps the draw a run keeps (the fake suite rejects some draws). Only
    the rejection reasons may differ: alone, the audit names the one video it read."""
    from voebench.generator.output import prepare_output
    from voebench.generator.runner import plan, produce_video
    from voebench.scenes import REGISTRY

    run(config(tmp_path / "run", trials=4))
    cfg = config(tmp_path / "one", trials=4)
    suite = REGISTRY.get("fake")
    prepare_output(cfg, suite)
    jobs = [j for j in plan(cfg, suite) if j.condition == "implausible"]
    attempts = []
    for job in jobs:
        result = produce_video(job, cfg)
        assert [e["condition"] for e in result.entries] == ["implausible"]
        attempts.append(result.attempt)
        run_file, alone = (os.path.join(tmp_path, d, f"{job.relpath}.h5") for d in ("run", "one"))
        a, b = h5_content(alone), h5_content(run_file)
        for content in (a, b):
            for key in [k for k in content if k.endswith("rejected") or k.endswith("manifest_entry")]:
                value = json.loads(content[key]) if key.endswith("manifest_entry") else None
                if value is not None:
                    value["rejected"] = [r["kind"] for r in value.get("rejected", [])]
                    content[key] = json.dumps(value, sort_keys=True)
                else:
                    content[key] = "rejected: reasons"
        assert a == b
    assert any(attempts)  # some trial's first draw was rejected, and the same redraw was kept


def test_a_label_no_draw_can_show_is_refused_although_others_are_valid(tmp_path):
    """A balanced leaf (a Level 1 label) is kept by every redraw, so a value none of whose draws is valid would
    leave its trials unmakeable: the probe refuses it even though the other value's draws are all valid."""
    out = tmp_path / "never"
    with pytest.raises(UsageError) as e:
        run(config(out, overrides={"ball": {"blue_fits": "false"}}), progress=False)
    msg = str(e.value)
    assert "fake/ball: no draw with tint=blue can be honoured" in msg and "involves blue_fits" in msg
    assert "blue_fits at its default True" in msg
    assert not out.exists()
