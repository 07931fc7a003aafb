"""The decoded-frame store (issue 28): clips read back equal the decoded ones; another sampling or another video
content is another clip; a second run reads the store and answers identically; two processes filling one store at
once and a fill killed with SIGKILL leave it correct."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

from voebench.evaluate import frames
from voebench.evaluate.frame_store import FrameStore, clip_key
from voebench.evaluate.tasks import load_manifest


def _videos(tiny_set, n=4):
    m = load_manifest(tiny_set)
    return [os.path.join(tiny_set, e["video"]) for e in m.entries[:n]]


def _stored_files(root):
    return sorted(os.path.join(d, f) for d, _, fs in os.walk(root) for f in fs)


@pytest.fixture
def store(tmp_path):
    frames.clear_cache()
    frames.reset_stats()
    frames.use_store(str(tmp_path / "store"))
    yield str(tmp_path / "store")
    frames.use_store(None)
    frames.clear_cache()


def test_a_stored_clip_reads_back_as_decoded(tiny_set, store):
    paths = _videos(tiny_set)
    first = [frames.read_frames(p, [0, 3, 7]).copy() for p in paths]
    assert frames.STATS["stored"] == 0 and len(_stored_files(store)) == len(paths)
    frames.clear_cache()  # the in-memory clips are gone: the store answers
    again = [frames.read_frames(p, [0, 3, 7]) for p in paths]
    assert frames.STATS["stored"] == len(paths)
    assert all(a.dtype == np.uint8 and (a == b).all() for a, b in zip(first, again))
    frames.use_store(None)
    frames.clear_cache()
    assert all((a == frames.read_frames(p, [0, 3, 7])).all() for a, p in zip(first, paths))


def test_another_sampling_or_content_is_another_clip(tiny_set, tmp_path):
    p = _videos(tiny_set, 1)[0]
    assert clip_key(p, (0, 3, 7)) != clip_key(p, (0, 3, 8))
    copy = tmp_path / "same.mp4"
    copy.write_bytes(open(p, "rb").read())
    assert clip_key(str(copy), (0, 3, 7)) == clip_key(p, (0, 3, 7))  # content-addressed: a copy shares its clips
    with open(copy, "ab") as f:
        f.write(b"\0")
    assert clip_key(str(copy), (0, 3, 7)) != clip_key(p, (0, 3, 7))  # the bytes changed: another clip


def test_a_broken_stored_file_is_a_miss_and_is_replaced(tiny_set, store):
    p = _videos(tiny_set, 1)[0]
    good = frames.read_frames(p, [1, 2]).copy()
    (file,) = _stored_files(store)
    with open(file, "r+b") as f:  # cut short, as a full disk would leave it
        f.truncate(100)
    frames.clear_cache()
    assert (frames.read_frames(p, [1, 2]) == good).all()
    assert frames.STATS["stored"] == 0
    assert np.load(file).shape == good.shape  # decoded again and stored whole


def test_a_second_run_reads_the_store_and_answers_the_same(tiny_set, tmp_path, store):
    from voebench.evaluate.run import EvalConfig, EvalRunner
    from voebench.evaluate.tasks import build_samples, select

    m = load_manifest(tiny_set)
    samples = build_samples(m, select(m, tests=["t09_gravity"]), "zero-shot")

    from voebench.evaluate.models.base import Adapter

    class Pixels(Adapter):  # a fake model that answers from the pixels it is shown
        name, batch_size, decodes_video = "pixels", 2, True

        def generate(self, requests):
            out = []
            for r in requests:
                v = next(msg["video"] for msg in r.messages if msg.get("video"))
                clip = frames.read_frames(v["path"], v["indices"])
                out.append("yes" if int(clip.astype(np.int64).sum()) % 2 else "no")
            return out

    runs = []
    for k, where in enumerate((None, store, store)):
        frames.clear_cache()
        frames.reset_stats()
        cfg = EvalConfig("zero-shot", repeats=1, num_frames=4, num_workers=0, frame_store=where)
        runner = EvalRunner(Pixels(), samples, str(tmp_path / f"run{k}"), cfg, progress=False)
        runner.run()
        with open(tmp_path / f"run{k}" / "samples.jsonl") as fh:
            runs.append([json.loads(line)["response"] for line in fh])
        runs[-1].append(runner.timing["clips_from_store"])
    assert runs[0][:-1] == runs[1][:-1] == runs[2][:-1]
    assert runs[1][-1] == 0 and runs[2][-1] > 0  # the third run read the clips the second one stored


FILL = """
import sys
from voebench.evaluate import frames
from test_frame_store import samplings
frames.use_store(sys.argv[1])
for p in sys.argv[3:]:
    for s in samplings(int(sys.argv[2])):
        frames.read_frames(p, s)
print("done")
"""


def samplings(n: int) -> list[tuple[int, ...]]:
    """`n` distinct frame samplings of the 8-frame test videos (up to 255)."""
    from itertools import combinations

    return [c for k in range(1, 9) for c in combinations(range(8), k)][:n]


def test_two_runs_fill_one_store_at_once_and_a_killed_fill_leaves_it_correct(tiny_set, tmp_path):
    paths = _videos(tiny_set, 3)
    root = str(tmp_path / "store")
    cmd = [sys.executable, "-c", FILL, root, "6", *paths]
    env = {**os.environ, "PYTHONPATH": os.path.dirname(__file__)}
    a, b = (subprocess.Popen(cmd, stdout=subprocess.PIPE, env=env) for _ in range(2))
    assert a.communicate(timeout=120)[0].strip() == b.communicate(timeout=120)[0].strip() == b"done"
    files = [f for f in _stored_files(root) if f.endswith(".npy")]
    assert len(files) == 3 * 6 and not [f for f in _stored_files(root) if ".tmp-" in f]
    # a fill killed at a random moment: what is under a final name is whole
    root2 = str(tmp_path / "killed")
    n = 255  # more clips than it fills before the kill
    proc = subprocess.Popen([sys.executable, "-c", FILL, root2, str(n), *paths], stdout=subprocess.DEVNULL, env=env)
    deadline = time.time() + 60
    while time.time() < deadline and len([f for f in _stored_files(root2) if f.endswith(".npy")]) < 5:
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    assert proc.wait() == -signal.SIGKILL, "the kill must land mid-fill"
    st = FrameStore(root2)
    frames.use_store(None)
    whole = 0
    for p in paths:
        for sampling in samplings(n):
            got = st.get(p, sampling)
            if got is not None:
                frames.clear_cache()
                assert (np.asarray(got) == frames.read_frames(p, sampling)).all()
                whole += 1
    frames.clear_cache()
    assert 5 <= whole < 3 * n
