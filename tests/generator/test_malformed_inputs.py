"""Malformed input through the real command line: flags, `--set` overrides, `--config` files and the folders
given to verify/audit/preview/merge. Each case must exit with code 2, print exactly one line on stderr that
names the offending flag or key, and leave every file as it was: the cases run against a folder that holds a
set voebench made, and the whole folder (bytes and mtimes) is compared before and after.

Each case is one `python -m voebench` process; they run a few at a time (they only parse and validate), so the
file takes seconds. Malformed output folders, manifests and HDF5 files are
tests/generator/test_malformed_outputs.py's."""

from __future__ import annotations

import hashlib
import os
import shutil
from concurrent.futures import ThreadPoolExecutor

import pytest
from conftest import TINY, voebench

SET = "set"  # relative to the workspace: the pre-existing set every render case points --out at
# The set's own settings: a case differs from them only by its malformed value, so that it fails for that
# value (the control test shows these settings alone are accepted).
TESTS = ["--tests", "shape,color"]
BASE = ["--out", SET, "--states-only", *TINY, "--workers", "1", "--quiet", *TESTS]
L1 = ["render", "grasp-l1", *BASE, "--videos-per-test", "1"]  # + the case's flags (argparse keeps the last)
L1_NO_TRIALS = ["render", "grasp-l1", *BASE]

CONFIGS = {
    "not-yaml.yaml": "grasp-l1/shape: [size: 1\n  : : ]\n",
    "list.yaml": "- size: 1\n- camera.fov: 60\n",
    "unknown-test.yaml": "grasp-l1/nope:\n  size: 1.0\n",
    "unknown-key.yaml": "'*':\n  camera.zoom: 2\n",
    "bad-value.yaml": "grasp-l1/shape:\n  size: -1:2\n",
    "nan-fov.yaml": "'*':\n  camera:\n    fov: .nan\n",
    "body-not-mapping.yaml": "grasp-l1/shape: 5\n",
    "wrong-type.yaml": "shape:\n  place: {x: [a, b]}\n",
}

# (case id, argv, text the one stderr line must contain: the flag or key at fault)
CASES = [
    # --fps
    ("fps-nan", [*L1, "--fps", "nan"], "--fps"),
    ("fps-inf", [*L1, "--fps", "inf"], "--fps"),
    ("fps-negative", [*L1, "--fps", "-10"], "--fps"),
    ("fps-zero", [*L1, "--fps", "0"], "--fps"),
    ("fps-huge", [*L1, "--fps", "100000"], "--fps"),
    ("fps-text", [*L1, "--fps", "fast"], "--fps"),
    # --seconds
    ("seconds-nan", [*L1, "--seconds", "nan"], "--seconds"),
    ("seconds-negative", [*L1, "--seconds", "-1"], "--seconds"),
    ("seconds-zero", [*L1, "--seconds", "0"], "--seconds"),
    ("seconds-huge", [*L1, "--seconds", "1e9"], "--seconds"),
    ("seconds-under-a-frame", [*L1, "--seconds", "0.01"], "--seconds"),
    # --resolution
    ("resolution-huge", [*L1, "--resolution", "100000x100000"], "--resolution"),
    ("resolution-tiny", [*L1, "--resolution", "15x15"], "--resolution"),
    ("resolution-odd", [*L1, "--resolution", "33x24"], "--resolution"),
    ("resolution-text", [*L1, "--resolution", "abc"], "--resolution"),
    ("resolution-three-parts", [*L1, "--resolution", "64x48x2"], "--resolution"),
    ("resolution-negative", [*L1, "--resolution", "-64x48"], "--resolution"),
    # images of a worker above the memory cap (rendered: no --states-only)
    (
        "resolution-over-memory-cap",
        ["render", "grasp-l1", "--out", SET, *TINY, "--videos-per-test", "1", "--resolution", "16384x16384"],
        "--resolution",
    ),
    # counts
    ("trials-zero", [*L1, "--videos-per-test", "0"], "--videos-per-test"),
    ("trials-negative", [*L1, "--videos-per-test", "-5"], "--videos-per-test"),
    ("trials-huge", [*L1, "--videos-per-test", "1000000"], "--videos-per-test"),
    ("trials-fractional", [*L1, "--videos-per-test", "1.5"], "--videos-per-test"),
    ("fraction-nan", [*L1_NO_TRIALS, "--fraction", "nan"], "--fraction"),
    ("fraction-zero", [*L1_NO_TRIALS, "--fraction", "0"], "--fraction"),
    ("fraction-above-one", [*L1_NO_TRIALS, "--fraction", "1.5"], "--fraction"),
    ("fraction-and-trials", [*L1, "--fraction", "0.5"], "--fraction"),
    ("workers-zero", [*L1, "--workers", "0"], "--workers"),
    ("workers-huge", [*L1, "--workers", "100000"], "--workers"),
    ("threads-negative", [*L1, "--threads", "-1"], "--threads"),
    ("samples-zero", [*L1, "--samples", "0"], "--samples"),
    ("seed-negative", [*L1, "--seed", "-1"], "--seed"),
    ("seed-too-big", [*L1, "--seed", str(2**63)], "--seed"),
    ("seed-fractional", [*L1, "--seed", "1.5"], "--seed"),
    ("shard-out-of-range", [*L1, "--shard", "2/2"], "--shard"),
    ("shard-zero-shards", [*L1, "--shard", "0/0"], "--shard"),
    ("shard-text", [*L1, "--shard", "a/b"], "--shard"),
    ("shard-three-parts", [*L1, "--shard", "1/2/3"], "--shard"),
    # other flags
    ("engine-unknown", [*L1, "--engine", "povray"], "--engine"),
    ("passes-unknown", ["render", "grasp-l1", "--out", SET, *TINY, "--passes", "rgb,normals"], "--passes"),
    ("passes-empty", ["render", "grasp-l1", "--out", SET, *TINY, "--passes", ","], "--passes"),
    ("tests-unknown", [*L1, "--tests", "shape,colour"], "colour"),
    ("tests-empty", [*L1, "--tests", ","], "--tests"),
    ("flag-unknown", [*L1, "--colour", "red"], "--colour"),
    ("suite-unknown", ["render", "grasp-l9", *BASE], "grasp-l9"),
    ("avoe-category-unknown", ["render", "avoe", *BASE[:-2], "--categories", "Z"], "--categories"),
    # --set
    ("set-unknown-key", [*L1, "--set", "camera.zoom=2"], "camera.zoom"),
    ("set-no-equals", [*L1, "--set", "camera.fov"], "--set"),
    ("set-empty-key", [*L1, "--set", "=5"], "--set"),
    ("set-bad-yaml-list", [*L1, "--set", "camera.eye=[1, 2"], "camera.eye"),
    ("set-nan", [*L1, "--set", "shape.size=nan"], "size"),
    ("set-inf", [*L1, "--set", "shape.size=inf"], "size"),
    ("set-overflow", [*L1, "--set", "shape.size=1e999"], "size"),
    ("set-negative-size", [*L1, "--set", "shape.size=-1:2"], "size"),
    ("set-zero-size", [*L1, "--set", "shape.size=0"], "size"),
    ("set-fov-negative", [*L1, "--set", "camera.fov=-10"], "camera.fov"),
    ("set-fov-zero", [*L1, "--set", "camera.fov=0"], "camera.fov"),
    ("set-fov-180", [*L1, "--set", "camera.fov=180"], "camera.fov"),
    ("set-fov-nan", [*L1, "--set", "camera.fov=nan"], "camera.fov"),
    ("set-fraction-above-one", [*L1, "--set", "shape.place.x=0.5:1.5"], "place.x"),
    ("set-inverted-range", [*L1, "--set", "shape.size=2:1"], "size"),
    ("set-text-for-number", [*L1, "--set", "camera.fov=wide"], "camera.fov"),
    ("set-bool-for-number", [*L1, "--set", "shape.size=true"], "size"),
    ("set-wrong-length", [*L1, "--set", "camera.eye=[1, 2]"], "camera.eye"),
    ("set-list-for-range", [*L1, "--set", "shape.size=[1, 2, 3]"], "size"),
    ("set-empty-choice", [*L1, "--set", "shape.shape=[]"], "shape"),
    ("set-label-not-in-choice", [*L1, "--set", "shape.shape=[ball, pyramid]"], "pyramid"),
    (
        "set-count-above-domain",
        [
            "render",
            "grasp-l2",
            *BASE[:-2],
            "--videos-per-test",
            "1",
            "--tests",
            "t01_unchangeableness",
            "--set",
            "n_objects=1:5",
        ],
        "n_objects",
    ),
    (
        "set-negative-seed",
        [
            "render",
            "grasp-l2",
            *BASE[:-2],
            "--videos-per-test",
            "1",
            "--tests",
            "t09_gravity_incline",
            "--set",
            "wood_seed=-1",
        ],
        "wood_seed",
    ),
    (
        "set-avoe-zero-width",
        ["render", "avoe", *BASE[:-2], "--videos-per-test", "1", "--categories", "A", "--set", "object.width=0:1"],
        "object.width",
    ),
    # --config
    ("config-missing", [*L1, "--config", "configs/missing.yaml"], "--config"),
    ("config-directory", [*L1, "--config", "configs"], "--config"),
    ("config-binary", [*L1, "--config", "configs/binary.yaml"], "--config"),
    ("config-not-yaml", [*L1, "--config", "configs/not-yaml.yaml"], "--config"),
    ("config-not-a-mapping", [*L1, "--config", "configs/list.yaml"], "--config"),
    ("config-unknown-test", [*L1, "--config", "configs/unknown-test.yaml"], "nope"),
    ("config-unknown-key", [*L1, "--config", "configs/unknown-key.yaml"], "camera.zoom"),
    ("config-bad-value", [*L1, "--config", "configs/bad-value.yaml"], "size"),
    ("config-nan", [*L1, "--config", "configs/nan-fov.yaml"], "camera.fov"),
    ("config-body-not-a-mapping", [*L1, "--config", "configs/body-not-mapping.yaml"], "grasp-l1/shape"),
    ("config-wrong-type", [*L1, "--config", "configs/wrong-type.yaml"], "place.x"),
    # params
    ("params-unknown-test", ["params", "grasp-l1/nope"], "nope"),
    ("params-bad-value", ["params", "grasp-l1/shape", "--set", "camera.fov=200"], "camera.fov"),
    # the folders other commands read
    ("verify-missing", ["verify", "missing"], "missing"),
    ("verify-file", ["verify", "afile.txt"], "afile.txt"),
    ("merge-missing", ["merge", "missing"], "missing"),
    ("merge-file", ["merge", "afile.txt"], "afile.txt"),
    ("audit-missing", ["audit", "missing"], "missing"),
    ("audit-file", ["audit", "afile.txt"], "afile.txt"),
    ("audit-json-in-missing-folder", ["audit", SET, "--json", "missing/a.json"], "--json"),
    ("preview-missing", ["preview", "missing"], "missing"),
    ("preview-file", ["preview", "afile.txt"], "afile.txt"),
    ("preview-zero-frames", ["preview", SET, "--frames", "0"], "--frames"),
]


def _snapshot(root) -> dict:
    """Every folder and file under root: a file's size, mtime and sha256."""
    out = {}
    for folder, _, files in os.walk(root):
        rel = os.path.relpath(folder, root)
        out[rel + "/"] = os.stat(folder).st_mtime_ns
        for name in files:
            path = os.path.join(folder, name)
            st = os.stat(path)
            with open(path, "rb") as f:
                out[os.path.join(rel, name)] = (st.st_size, st.st_mtime_ns, hashlib.sha256(f.read()).hexdigest())
    return out


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A folder with a voebench-made set, config files and a plain file; every case runs in it (its cwd), so
    a default output folder would show up here too. Returns (folder, snapshot before, results by case)."""
    root = tmp_path_factory.mktemp("malformed")
    voebench("render", "grasp-l1", *L1[2:], cwd=root)
    (root / "configs").mkdir()
    for name, text in CONFIGS.items():
        (root / "configs" / name).write_text(text)
    (root / "configs" / "binary.yaml").write_bytes(bytes(range(256)) * 4)
    (root / "afile.txt").write_text("not a set\n")
    before = _snapshot(root)
    with ThreadPoolExecutor(4) as pool:  # processes that only parse and validate: a few at a time is plenty
        procs = list(pool.map(lambda case: voebench(*case[1], check=False, cwd=root), CASES))
    return root, before, {case[0]: proc for case, proc in zip(CASES, procs)}


def test_there_are_at_least_40_cases():
    assert len(CASES) >= 40 and len({c[0] for c in CASES}) == len(CASES)


@pytest.mark.parametrize("case,argv,names", CASES, ids=[c[0] for c in CASES])
def test_malformed_input_is_one_line_naming_it_and_exit_2(workspace, case, argv, names):
    proc = workspace[2][case]
    lines = proc.stderr.splitlines()
    assert proc.returncode == 2, f"exit {proc.returncode}\n{proc.stderr[-2000:]}"
    assert len(lines) == 1, f"{len(lines)} lines on stderr:\n{proc.stderr[-2000:]}"
    assert names in lines[0], lines[0]
    assert "Traceback" not in proc.stderr and proc.stdout == ""


def test_no_case_changed_any_file(workspace):
    root, before, _ = workspace
    after = _snapshot(root)
    assert sorted(set(after) - set(before)) == [], "created"
    assert sorted(set(before) - set(after)) == [], "removed"
    assert [k for k in before if before[k] != after[k]] == [], "changed"


def test_control_the_base_settings_alone_are_accepted(workspace, tmp_path):
    """The cases fail for their malformed value only: the same command lines without it render (into a copy,
    where every video is already there)."""
    root = workspace[0]
    shutil.copytree(root / SET, tmp_path / SET)
    proc = voebench(*L1, cwd=tmp_path)
    assert "0 made, 2 already there" in proc.stderr
    assert voebench(*L1_NO_TRIALS, "--fraction", str(1 / 128), cwd=tmp_path).returncode == 0
