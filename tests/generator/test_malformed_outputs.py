"""The data contract on the command line: folders voebench did not write, corrupt manifests and broken HDF5
files are refused by render / verify / audit / evaluate / merge with exit 2 and one line, and no file changes;
a set made by other code is refused and `render --upgrade` remakes only the changed tests; incomplete pairs are
reported by verify and refused by evaluate and report unless --complete-pairs-only."""

from __future__ import annotations

import json
import os
import shutil

import h5py
import pytest
from conftest import voebench

# GRASP Level 2 needs 10 s for its events; states-only keeps it cheap (no pixels, no Blender)
L2 = [
    "--tests",
    "t09_gravity_incline,t02_unchangeableness_color",
    "--states-only",
    "--seconds",
    "10",
    "--fps",
    "10",
    "--resolution",
    "64x48",
    "--workers",
    "1",
    "--quiet",
]


def render(out, *extra, trials=1, check=True):
    return voebench("render", "grasp-l2", "--out", out, "--trials", trials, *L2, *extra, check=check)


@pytest.fixture(scope="module")
def l2_set(tmp_path_factory):
    """A tiny Level 2 set: two tests x two pairs, ground truth only."""
    out = tmp_path_factory.mktemp("l2") / "set"
    render(out, trials=2)
    return out


@pytest.fixture
def l2_copy(l2_set, tmp_path):
    out = tmp_path / "copy"
    shutil.copytree(l2_set, out)
    return out


@pytest.fixture
def eval_copy(tmp_path):
    from evaluate_fixtures import make_tiny_set

    out = tmp_path / "tiny"
    out.mkdir()
    return make_tiny_set(str(out))


def snapshot(root) -> dict[str, bytes]:
    out = {}
    for dirpath, _, files in os.walk(root):
        for name in files:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = f.read()
    return out


def lines(path) -> list[str]:
    return open(path).read().splitlines(keepends=True)


def refused(root, args, message):
    """Run voebench with `args`: exit 2, one line on stderr containing `message`, and `root` unchanged."""
    before = snapshot(root)
    proc = voebench(*args, check=False)
    assert proc.returncode == 2, (proc.returncode, proc.stdout, proc.stderr)
    err = proc.stderr.strip().splitlines()
    assert len(err) == 1 and message in err[0], proc.stderr
    assert snapshot(root) == before, "a refused command changed files"


# ------------------------------------------------------------------------------------------ malformed folders


def foreign(root):
    (root / "dataset.json").write_text('{"x": 1}')


def corrupt_manifest(root):
    ls = lines(root / "manifest.jsonl")
    ls[1] = ls[1][: len(ls[1]) // 2] + "\n"  # a line cut in the middle, not the last one
    (root / "manifest.jsonl").write_text("".join(ls))


def cut_last_line(root):
    text = (root / "manifest.jsonl").read_text()
    (root / "manifest.jsonl").write_text(text[:-40])


def previous_release(root):
    info = json.loads((root / "dataset.json").read_text())
    for k in ("written_by", "schema_version"):
        del info[k]
    (root / "dataset.json").write_text(json.dumps(info))


def newer_schema(root):
    info = json.loads((root / "dataset.json").read_text())
    info["schema_version"] = 99
    (root / "dataset.json").write_text(json.dumps(info))


def unreadable_dataset(root):
    (root / "dataset.json").write_bytes(b"\x00\xff not json")


def first_h5(root):
    return root / json.loads(lines(root / "manifest.jsonl")[0])["states"]


def truncated_h5(root):
    path = first_h5(root)
    with open(path, "r+b") as f:
        f.truncate(os.path.getsize(path) // 2)


def h5_without(attr):
    def edit(root):
        with h5py.File(first_h5(root), "r+") as f:
            del f.attrs[attr]

    return edit


def lost_line_and_entry(root):
    """A finished video whose manifest line was lost and whose HDF5 lacks manifest_entry: render cannot resume it."""
    ls = lines(root / "manifest.jsonl")
    h5_without("manifest_entry")(root)
    (root / "manifest.jsonl").write_text("".join(ls[1:]))


def entry_lacks_key(root):
    ls = lines(root / "manifest.jsonl")
    e = json.loads(ls[0])
    del e["prompts"]
    ls[0] = json.dumps(e) + "\n"
    (root / "manifest.jsonl").write_text("".join(ls))


def other_code(root):
    """The set was made by other code: the scene code of t02 differs from what made its videos."""
    info = json.loads((root / "dataset.json").read_text())
    info["suites"]["grasp-l2"]["identity"]["code"]["tests"]["t02_unchangeableness_color"] = "0" * 16
    (root / "dataset.json").write_text(json.dumps(info, indent=2, sort_keys=True) + "\n")


def corrupt_shard(root):
    ls = lines(root / "manifest.jsonl")
    (root / "manifest-shard-0-of-2.jsonl").write_text(ls[0] + "not json\n" + ls[1])


RENDER = ["render", "grasp-l2", "--trials", "1", *L2, "--out"]

CASES = [  # (name, command before the folder, edit, message)
    ("render: foreign dataset.json", RENDER, foreign, "not written by voebench"),
    (
        "render: foreign dataset.json and corrupt manifest",
        RENDER,
        lambda r: (foreign(r), corrupt_manifest(r)),
        "not written by voebench",
    ),
    ("render: unreadable dataset.json", RENDER, unreadable_dataset, "unreadable"),
    ("render: previous release", RENDER, previous_release, "earlier voebench release"),
    ("render: newer schema", RENDER, newer_schema, "schema_version 99"),
    ("render: corrupt manifest", RENDER, corrupt_manifest, "manifest.jsonl:2: not JSON"),
    ("render: made by other code", RENDER, other_code, "t02_unchangeableness_color"),
    ("render: HDF5 without manifest_entry", RENDER, lost_line_and_entry, "manifest_entry"),
    ("verify: foreign dataset.json", ["verify"], foreign, "not written by voebench"),
    ("verify: corrupt manifest", ["verify"], corrupt_manifest, "manifest.jsonl:2"),
    ("verify: last line cut short", ["verify"], cut_last_line, "cut short"),
    ("audit: foreign dataset.json", ["audit"], foreign, "not written by voebench"),
    ("audit: corrupt manifest", ["audit"], corrupt_manifest, "manifest.jsonl:2"),
    ("audit: truncated HDF5", ["audit"], truncated_h5, "unreadable HDF5"),
    ("audit: HDF5 without an attribute", ["audit"], h5_without("code_fingerprint"), "code_fingerprint"),
    ("merge: corrupt shard manifest", ["merge"], corrupt_shard, "manifest-shard-0-of-2.jsonl:2"),
    ("evaluate: entry lacks a key", ["evaluate"], entry_lacks_key, "lacks prompts"),
]


@pytest.mark.parametrize("name,command,edit,message", CASES, ids=[c[0] for c in CASES])
def test_malformed_sets_are_refused_and_left_untouched(l2_copy, name, command, edit, message):
    edit(l2_copy)
    args = [*command, l2_copy]
    if command == ["evaluate"]:
        args += ["--model", "fake:yes", "--out", l2_copy.parent / "run"]
    refused(l2_copy, args, message)


@pytest.mark.parametrize(
    "edit,message",
    [
        (foreign, "not written by voebench"),
        (corrupt_manifest, ".jsonl:2"),
        (cut_last_line, "cut short"),
        (previous_release, "earlier"),
    ],
)
def test_evaluate_refuses_malformed_sets(eval_copy, tmp_path, edit, message):
    from pathlib import Path

    edit(Path(eval_copy))
    refused(eval_copy, ["evaluate", eval_copy, "--model", "fake:yes", "--out", tmp_path / "run"], message)
    assert not (tmp_path / "run").exists()


def test_a_folder_voebench_did_not_write_is_never_written_into(tmp_path):
    out = tmp_path / "mine"
    out.mkdir()
    (out / "notes.txt").write_text("my data")
    refused(out, [*RENDER, out], "no dataset.json")
    assert sorted(os.listdir(out)) == ["notes.txt"]


# ------------------------------------------------------------------------------------------ code fingerprints


def test_every_file_records_the_code_that_made_it(l2_set):
    from voebench.contract import hdf5 as layout
    from voebench.generator.fingerprint import core_fingerprint

    info = json.loads((l2_set / "dataset.json").read_text())
    code = info["suites"]["grasp-l2"]["identity"]["code"]
    assert info["written_by"] == "voebench" and info["schema_version"] == 2
    assert code["core"] == core_fingerprint()
    for line in lines(l2_set / "manifest.jsonl"):
        e = json.loads(line)
        attrs = layout.read_root(str(l2_set / e["states"]))
        assert attrs["code_fingerprint"] == code["core"]
        assert attrs["scene_fingerprint"] == code["tests"][e["test"]]
        assert e["pair_conditions"] == ["plausible", "implausible"]


def test_the_scene_fingerprint_rule():
    """A test's own module changes only that test; shared suite modules and scenes/common.py change every test
    of the suite; modules that never run while a video is made are not part of the core."""
    from voebench.generator import fingerprint as fp
    from voebench.scenes import REGISTRY

    l2 = REGISTRY.get("grasp-l2")
    names = {os.path.basename(p) for p in fp.scene_files(l2, "t09_gravity_incline")}
    assert "t09_gravity_incline.py" in names and "t02_unchangeableness_color.py" not in names
    assert {"apparatus.py", "motion.py", "common.py", "__init__.py"} <= names
    assert fp.scene_fingerprint(l2, "t09_gravity_incline") != fp.scene_fingerprint(l2, "t02_unchangeableness_color")
    core = {os.path.basename(p) for _, files in fp.core_files() for p in files}
    assert {"runner.py", "hdf5.py", "manifest.py", "fingerprint.py", "trial.py", "feasibility.py"} <= core
    assert not {"cli.py", "preview.py", "verify.py", "progress.py", "limits.py"} & core
    # the audit decides which draws the generation gate keeps: it is part of the core
    assert any("audit" in p for _, files in fp.core_files() for p in files)


@pytest.mark.heavy
def test_other_code_is_refused_and_upgrade_remakes_only_the_changed_tests(l2_copy):
    other_code(l2_copy)
    refused(l2_copy, [*RENDER, l2_copy, "--trials", "2"], "--upgrade")
    es = [json.loads(x) for x in lines(l2_copy / "manifest.jsonl")]
    t09 = {e["states"]: os.stat(l2_copy / e["states"]).st_mtime_ns for e in es if e["test"] == "t09_gravity_incline"}
    t02 = {e["states"]: os.stat(l2_copy / e["states"]).st_ino for e in es if e["test"] == "t02_unchangeableness_color"}
    proc = render(l2_copy, "--upgrade", trials=2)
    assert "4 made, 4 already there" in proc.stderr
    for rel, mtime in t09.items():
        assert os.stat(l2_copy / rel).st_mtime_ns == mtime, "an unchanged test was touched"
    for rel in t02:
        assert (l2_copy / rel).exists()  # made again (a new file replaced the deleted one)
    assert len(lines(l2_copy / "manifest.jsonl")) == 8
    assert voebench("verify", l2_copy).returncode == 0
    render(l2_copy, trials=2)  # the recorded code is the running code again: resuming is allowed


# ------------------------------------------------------------------------------------------ whole pairs


def test_verify_reports_orphans_and_repair_remakes_whole_trials(l2_copy):
    ls = lines(l2_copy / "manifest.jsonl")
    orphan = json.loads(ls[0])  # its twin's line goes
    twin = next(json.loads(x) for x in ls[1:] if json.loads(x)["pair_id"] == orphan["pair_id"])
    (l2_copy / "manifest.jsonl").write_text("".join(x for x in ls if json.loads(x)["id"] != twin["id"]))
    broken = next(json.loads(x) for x in ls if json.loads(x)["pair_id"] not in (orphan["pair_id"],))
    truncated = l2_copy / broken["states"]
    with open(truncated, "r+b") as f:
        f.truncate(os.path.getsize(truncated) // 2)

    proc = voebench("verify", l2_copy, check=False)
    assert proc.returncode == 1
    assert f"{orphan['id']}: orphan: its twin ({twin['condition']}) is missing" in proc.stdout
    assert f"{broken['pair_id']}: incomplete pair" in proc.stdout

    assert voebench("verify", l2_copy, "--repair", check=False).returncode == 1
    left = {json.loads(x)["pair_id"] for x in lines(l2_copy / "manifest.jsonl")}
    assert orphan["pair_id"] not in left and broken["pair_id"] not in left
    for pid in (orphan["pair_id"], broken["pair_id"]):
        stem = pid.split("/")[-1]
        assert not list((l2_copy / os.path.dirname(pid)).glob(f"{stem}-*.h5")), "the whole trial's files go"
    proc = render(l2_copy, trials=2)
    assert "4 made, 4 already there" in proc.stderr
    assert voebench("verify", l2_copy).returncode == 0


def drop_one_video(root) -> str:
    """Remove the implausible video of the first Level 2 pair from the manifest; returns its pair id."""
    ls = lines(os.path.join(root, "manifest.jsonl"))
    victim = next(json.loads(x) for x in ls if json.loads(x)["condition"] == "implausible")
    with open(os.path.join(root, "manifest.jsonl"), "w") as f:
        f.writelines(x for x in ls if json.loads(x)["id"] != victim["id"])
    return victim["pair_id"]


def test_evaluate_refuses_an_incomplete_paired_set_unless_complete_pairs_only(eval_copy, tmp_path):
    drop_one_video(eval_copy)
    run = tmp_path / "run"
    refused(
        eval_copy,
        ["evaluate", eval_copy, "--model", "fake:yes", "--out", run, "--repeats", "1"],
        "1 of 4 pairs are incomplete",
    )
    proc = voebench(
        "evaluate",
        eval_copy,
        "--model",
        "fake:yes",
        "--out",
        run,
        "--repeats",
        "1",
        "--complete-pairs-only",
        "--no-progress",
    )
    assert "1 incomplete pair(s) dropped" in proc.stderr
    res = json.load(open(run / "results.json"))
    assert res["incomplete_pairs_dropped"] == 1
    l2 = next(s for s in res["suites"] if s["suite"] == "grasp-l2")
    assert l2["mean_acc"] == 0.5, "a yes-sayer scores chance on whole pairs"
    assert voebench("report", run).returncode == 0


def test_report_refuses_a_run_with_incomplete_pairs(eval_copy, tmp_path):
    run = tmp_path / "run"
    voebench("evaluate", eval_copy, "--model", "fake:yes", "--out", run, "--repeats", "1", "--no-progress")
    recs = lines(run / "samples.jsonl")
    victim = next(json.loads(x) for x in recs if json.loads(x)["condition"] == "implausible")
    (run / "samples.jsonl").write_text("".join(x for x in recs if json.loads(x)["video_id"] != victim["video_id"]))
    refused(run, ["report", run], "1 of 4 pairs are incomplete")
    proc = voebench("report", run, "--complete-pairs-only")
    assert "1 incomplete pair(s) dropped" in proc.stderr
    assert json.load(open(run / "results.json"))["incomplete_pairs_dropped"] == 1


# ------------------------------------------------------------------------------------------ the readers


def test_manifest_reader_tolerates_only_a_cut_short_last_line(tmp_path):
    from voebench.contract import ContractError
    from voebench.contract import manifest as mf
    from contract_fixtures import complete_entry

    e = complete_entry(
        {
            "id": "a",
            "suite": "s",
            "test": "t",
            "condition": "c",
            "states": "x.h5",
            "n_frames": 1,
            "fps": 1,
            "width": 2,
            "height": 2,
        }
    )
    path = str(tmp_path / "manifest.jsonl")
    with open(path, "w") as f:
        f.write(json.dumps(e) + "\n" + json.dumps({**e, "id": "b"})[:30])
    assert [x["id"] for x in mf.read_manifest(path, truncated="ignore")] == ["a"]
    with pytest.raises(ContractError, match="cut short"):
        mf.read_manifest(path, truncated="error")
    with mf.Appender(path) as app:  # appending first cuts the broken tail off
        app.append({**e, "id": "c"})
    assert [x["id"] for x in mf.read_manifest(path)] == ["a", "c"]
    with open(path, "a") as f:
        f.write("{broken\n" + json.dumps(e) + "\n")
    with pytest.raises(ContractError, match=r"manifest.jsonl:3: not JSON"):
        mf.read_manifest(path, truncated="ignore")


def test_a_line_cut_short_by_a_kill_is_resumed_past(l2_copy):
    """render tolerates the one thing a kill leaves (a last line without its newline), cuts it off before
    appending, and ends with a complete manifest."""
    cut_last_line(l2_copy)
    assert voebench("verify", l2_copy, check=False).returncode == 2  # an unfinished set is not verified
    proc = render(l2_copy, trials=2)
    assert "0 made, 8 already there" in proc.stderr
    assert len(lines(l2_copy / "manifest.jsonl")) == 8
    assert voebench("verify", l2_copy).returncode == 0


def test_verify_finds_a_file_made_by_other_code(l2_copy):
    path = first_h5(l2_copy)
    with h5py.File(path, "r+") as f:
        f.attrs["scene_fingerprint"] = "0" * 16
    proc = voebench("verify", l2_copy, check=False)
    assert proc.returncode == 1 and "made by other code than dataset.json records" in proc.stdout
