"""Prompts outside the code (issue 27): a set records the version of the words its questions carry
(`identity.prompts`); a set asked in other words is refused without `--upgrade`, and `render --upgrade` rewrites
its question texts without rendering anything, to what a fresh render in the new words writes. The prompts are
reworded with monkeypatch on the suite's prompts module, never by editing the repository."""

from __future__ import annotations

import json
import os
import shutil

import h5py
import numpy as np
import pytest

from voebench.errors import UsageError
from voebench.generator import fingerprint as fp
from voebench.generator import runner, trial
from voebench.generator.feasibility import Probes
from voebench.generator.runner import RunConfig, run
from voebench.generator.suite import load_suite
from voebench.scenes.grasp_l1 import prompts as l1_prompts
from voebench.scenes.newton import prompts as newton_prompts

#: (suite, tests, seconds): one Level 1 test with an open question and one without; NEWTON's five question kinds
L1 = ("grasp-l1", ["shape", "movement"], 1.0)
NEWTON = ("newton", ["elasticity"], 3.0)


def _cfg(out, suite: str, tests: list[str], seconds: float) -> RunConfig:
    """A tiny states-only run (no Blender): 2 trials per test, 64x48, 10 fps, in this process."""
    return RunConfig(
        out=str(out), suite=suite, tests=tests, trials=2, seconds=seconds, fps=10, width=64, height=48, passes=()
    )


def _reword_l1(monkeypatch) -> None:
    monkeypatch.setattr(l1_prompts, "YES_NO", " True or false? Say yes or no.")
    monkeypatch.setitem(l1_prompts.STATEMENT, "shape", "On the table there is a {}.")
    monkeypatch.setitem(l1_prompts.OPEN_QUESTION, "shape", "Which shape does the object on the table have?")


def _reword_newton(monkeypatch) -> None:
    monkeypatch.setattr(newton_prompts, "CHOICE", "Of {options}, which one is the {extreme} {adjective}?")
    monkeypatch.setattr(newton_prompts, "COMPARISON", "True or false: {a} is {word} {adjective} than {b}.")
    monkeypatch.setitem(newton_prompts.ADJECTIVE, "elasticity", "bouncy")
    monkeypatch.setitem(newton_prompts.SCENARIO, "elasticity", ("I need a bouncy ball.", "Which of {objects}?"))


def _no_probe(monkeypatch) -> None:
    """Skip the feasibility probe (seconds of CPU per run, its own files in a temporary folder): these runs are on
    finished sets, so it decides nothing."""
    monkeypatch.setattr(runner, "check_feasible", lambda suite, cfg: Probes())


def _count_writes(monkeypatch) -> list[str]:
    """The HDF5 paths every video file written from now on is written to (the gate's checks included)."""
    written: list[str] = []
    write_files = trial.write_files

    def counted(*args, **kwargs):
        written.append(str(args[6]))  # h5_path
        return write_files(*args, **kwargs)

    monkeypatch.setattr(trial, "write_files", counted)
    return written


def _files(root) -> dict[str, bytes]:
    out = {}
    for dirpath, _, names in os.walk(root):
        for name in names:
            path = os.path.join(dirpath, name)
            with open(path, "rb") as f:
                out[os.path.relpath(path, root)] = f.read()
    return out


def _h5_content(path) -> dict:
    """Every attribute and dataset of an HDF5, by path (attribute order included)."""
    out: dict = {}

    def walk(g, where: str) -> None:
        out[where + "@"] = [(k, np.asarray(g.attrs[k]).tolist()) for k in g.attrs]
        for k in g:
            if isinstance(g[k], h5py.Group):
                walk(g[k], f"{where}/{k}")
            else:
                out[f"{where}/{k}"] = (g[k][()].tolist(), [(a, np.asarray(g[k].attrs[a]).tolist()) for a in g[k].attrs])

    with h5py.File(path, "r") as f:
        walk(f, "")
    return out


def _texts(out) -> list[str]:
    with open(os.path.join(out, "manifest.jsonl")) as f:
        return [p["text"] for line in f for p in json.loads(line)["prompts"]]


@pytest.fixture(scope="module")
def l1_set(tmp_path_factory):
    out = tmp_path_factory.mktemp("l1") / "set"
    run(_cfg(out, *L1), progress=False)
    return out


@pytest.fixture(scope="module")
def newton_set(tmp_path_factory):
    out = tmp_path_factory.mktemp("newton") / "set"
    run(_cfg(out, *NEWTON), progress=False)
    return out


def test_the_set_records_its_prompts_version(l1_set, monkeypatch):
    suite = load_suite("grasp-l1")
    with open(l1_set / "dataset.json") as f:
        ident = json.load(f)["suites"]["grasp-l1"]["identity"]
    assert ident["prompts"] == fp.prompts_version(suite) and len(ident["prompts"]) == 16
    code = fp.code_identity(suite)
    _reword_l1(monkeypatch)
    assert fp.prompts_version(suite) != ident["prompts"]  # other words: another version...
    assert fp.code_identity(suite) == code == ident["code"]  # ...and the same code


def test_other_words_are_refused_without_upgrade(l1_set, tmp_path, monkeypatch):
    out = tmp_path / "copy"
    shutil.copytree(l1_set, out)
    before = _files(out)
    _reword_l1(monkeypatch)
    _no_probe(monkeypatch)
    with pytest.raises(UsageError, match="asked in other words") as refusal:
        run(_cfg(out, *L1), progress=False)
    assert "--upgrade" in str(refusal.value) and "\n" not in str(refusal.value)
    assert _files(out) == before


@pytest.mark.parametrize(("name", "reword"), [("l1", _reword_l1), ("newton", _reword_newton)])
def test_upgrade_rewords_without_rendering_as_a_fresh_render_would(name, reword, request, tmp_path, monkeypatch):
    finished = request.getfixturevalue(f"{name}_set")
    spec = L1 if name == "l1" else NEWTON
    copies = [tmp_path / "a", tmp_path / "b"]
    for out in copies:
        shutil.copytree(finished, out)
    old = _texts(finished)
    with open(finished / "manifest.jsonl") as f:
        n_videos = len(f.readlines())
    reword(monkeypatch)
    fresh = tmp_path / "fresh"
    run(_cfg(fresh, *spec), progress=False)  # the new words, rendered from scratch

    _no_probe(monkeypatch)
    written = _count_writes(monkeypatch)
    for out in copies:
        result = run(_cfg(out, *spec), progress=False, upgrade=True)
        assert result.done == 0 and result.failed == [] and result.skipped == n_videos
    assert written == [], "--upgrade after a prompt edit rendered a video"
    a, b = copies
    new = _texts(a)
    assert len(new) == len(old) and all(x != y for x, y in zip(old, new))  # every text is in other words
    assert new == _texts(fresh)
    assert (a / "manifest.jsonl").read_bytes() == (fresh / "manifest.jsonl").read_bytes()
    with open(a / "dataset.json") as f, open(fresh / "dataset.json") as g:
        assert json.load(f) == json.load(g)  # the new prompts version, the same code and settings
    h5s = sorted(k for k in _files(fresh) if k.endswith(".h5"))
    assert h5s and h5s == sorted(k for k in _files(a) if k.endswith(".h5"))
    for rel in h5s:
        assert _h5_content(a / rel) == _h5_content(fresh / rel), rel  # every dataset and attribute, in order
    assert _files(a) == _files(b)  # rewording is deterministic: the same bytes whenever it runs
    assert not [k for k in _files(a) if ".tmp-" in k]
    assert run(_cfg(a, *spec), progress=False).done == 0  # the set is in the running words again: it resumes


def test_a_prompt_edit_changes_only_texts(l1_set, tmp_path, monkeypatch):
    """Rewording touches the texts and nothing else of an entry: answers, observations and choices stay."""
    from voebench.generator.rewording import reworded

    suite = load_suite("grasp-l1")
    with open(l1_set / "manifest.jsonl") as f:
        entries = [json.loads(line) for line in f]
    assert [reworded(suite, e) for e in entries] == entries  # the same words: the same entries
    _reword_l1(monkeypatch)
    for e in entries:
        new = reworded(suite, e)
        strip = [{k: v for k, v in p.items() if k != "text"} for p in e["prompts"]]
        assert [{k: v for k, v in p.items() if k != "text"} for p in new["prompts"]] == strip
        assert {k: v for k, v in new.items() if k != "prompts"} == {k: v for k, v in e.items() if k != "prompts"}
        assert [list(p) for p in new["prompts"]] == [list(p) for p in e["prompts"]]  # key order kept


def test_changed_code_and_changed_words_together(l1_set, tmp_path, monkeypatch):
    """A test whose code changed is made again (in the new words), every other test is reworded, not rendered."""
    out = tmp_path / "copy"
    shutil.copytree(l1_set, out)
    with open(out / "dataset.json") as f:
        info = json.load(f)
    info["suites"]["grasp-l1"]["identity"]["code"]["tests"]["movement"] = "0" * 16  # made by other code
    with open(out / "dataset.json", "w") as f:
        json.dump(info, f)
    _reword_l1(monkeypatch)
    _no_probe(monkeypatch)
    written = _count_writes(monkeypatch)
    result = run(_cfg(out, *L1), progress=False, upgrade=True)
    assert result.done == 2 and result.skipped == 2
    made = sorted(os.path.relpath(p.split(".tmp-")[0], out) for p in written if p.startswith(str(out)))
    assert made == ["grasp-l1/movement/00000.h5", "grasp-l1/movement/00001.h5"]  # (and the gate's checks elsewhere)
    texts = _texts(out)
    open_question = "Which shape does the object on the table have?"
    assert len(texts) == 2 * 3 + 2 * 2 and texts.count(open_question) == 2  # shape: 2 statements and a question
    assert all(t.endswith(" True or false? Say yes or no.") for t in texts if t != open_question)
