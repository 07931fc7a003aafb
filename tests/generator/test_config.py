"""The run configuration (generator/config.py) is built once, in the parent, and sent whole to the workers: a
`--set` override is parsed once whatever the workers; and the generator's modules import one another only
downwards (generator/workers.py, the import-linter layers contract inside voebench.generator)."""

from __future__ import annotations

import ast
import dataclasses
import json
import os
import pickle

from counting_suite import BUILD_LOG, PARSE_LOG
from voebench.cli import main
from voebench.generator.config import RunConfig, effective_space
from voebench.generator.suite import load_suite, register_suite

register_suite("counting", "counting_suite:CountingSuite")

GENERATOR = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "generator")


def lines(path) -> list[str]:
    return path.read_text().splitlines() if path.exists() else []


def test_a_set_override_is_parsed_once_in_the_parent_over_a_two_worker_run(tmp_path, monkeypatch, capsys):
    parses, builds = tmp_path / "parses", tmp_path / "builds"
    monkeypatch.setenv(PARSE_LOG, str(parses))  # inherited by the spawned workers
    monkeypatch.setenv(BUILD_LOG, str(builds))
    out = tmp_path / "set"
    argv = ["render", "counting", "--out", str(out), "--videos-per-test", "4", "--states-only", "--quiet"]
    rc = main([*argv, "--workers", "2", "--set", "size=0.2:0.3"])
    assert rc == 0, capsys.readouterr().err
    entries = [json.loads(line) for line in (out / "manifest.jsonl").read_text().splitlines()]
    assert len(entries) == 8  # 4 pairs
    assert all(0.2 <= e["params"]["sampled"]["size"] <= 0.3 for e in entries), "the override was applied"
    assert {e["params"]["config"]["space"]["size"] for e in entries} == {"0.2:0.3"}
    parent = os.getpid()
    assert {int(pid) for pid in lines(builds)} - {parent}, "the trials were built in worker processes"
    assert lines(parses) == [f"{parent} counting/ball: size"], "parsed once, in the parent"


def test_a_resolved_configuration_travels_without_parsing_again(tmp_path, monkeypatch):
    parses = tmp_path / "parses"
    monkeypatch.setenv(PARSE_LOG, str(parses))
    suite = load_suite("counting")
    cfg = RunConfig(out="x", suite="counting", tests=["ball"], trials=1, overrides={"ball": {"size": "0.3"}})
    resolved = cfg.resolve(suite)
    assert len(lines(parses)) == 1
    sent = pickle.loads(pickle.dumps(resolved))  # what a worker receives
    assert sent.space(suite, "ball").describe() == effective_space(suite, "ball", cfg.overrides).describe()
    assert resolved.resolve(suite) is resolved and sent.resolve(suite) is sent
    assert sent.identity(suite)["spaces"] == resolved.identity(suite)["spaces"]
    assert len(lines(parses)) == 2  # only the effective_space above
    # spaces resolved from other overrides are never used: a copy with new overrides resolves them again
    other = dataclasses.replace(sent, overrides={"ball": {"size": "0.25:0.35"}})
    assert other.space(suite, "ball").describe()["size"] == "0.25:0.35"
    assert sent.space(suite, "ball").describe()["size"] == "0.3"
    unresolved = dataclasses.replace(cfg, overrides={})
    assert unresolved.space(suite, "ball").describe()["size"] == "0.2:0.7"


def function_level_private_imports(source: str, own: str) -> list[str]:
    """`from voebench.generator.X import _name` inside a function body of module `own` (dotted, under
    voebench.generator), X another module: the hidden back-edges issue 27 found (distributed -> runner,
    feasibility -> output, output -> feasibility)."""
    found = []
    for fn in ast.walk(ast.parse(source)):
        if not isinstance(fn, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        for node in ast.walk(fn):
            if isinstance(node, ast.ImportFrom) and (node.module or "").startswith("voebench.generator."):
                module = (node.module or "").removeprefix("voebench.generator.")
                private = [a.name for a in node.names if a.name.startswith("_")]
                if private and module != own:
                    found.append(f"{own}:{node.lineno} imports {private} from {module}")
    return found


def test_no_generator_module_imports_another_ones_private_names_inside_a_function():
    found = []
    for folder, _, names in os.walk(GENERATOR):
        for name in sorted(n for n in names if n.endswith(".py")):
            path = os.path.join(folder, name)
            own = os.path.relpath(path, GENERATOR)[:-3].replace(os.sep, ".").removesuffix(".__init__")
            with open(path, encoding="utf-8") as f:
                found += function_level_private_imports(f.read(), own)
    assert found == []
    # the check finds what it looks for (the import distributed.py made before issue 27)
    hidden = "def task():\n    from voebench.generator.runner import _safe_produce, produce\n"
    assert function_level_private_imports(hidden, "distributed") == [
        "distributed:2 imports ['_safe_produce'] from runner"
    ]


def _config(*argv):
    from voebench.cli import build_parser
    from voebench.generator.cli import build_config

    return build_config(build_parser().parse_args(["render", *argv, "--out", "unused"]))


def test_grasp_defaults_to_the_originals_640x480_on_the_dirty_path_and_other_engines_to_the_full_path():
    for suite in ("grasp-l1", "grasp-l2"):
        cfg = _config(suite, "--videos-per-test", "1")
        assert (cfg.width, cfg.height, cfg.render_path) == (640, 480, "dirty")
        assert _config(suite, "--videos-per-test", "1", "--engine", "cycles").render_path == "full"
        assert _config(suite, "--videos-per-test", "1", "--render-path", "full").render_path == "full"
        assert _config(suite, "--videos-per-test", "1", "--resolution", "320x240").width == 320
    avoe = _config("avoe", "--fraction", "0.1")
    assert (avoe.width, avoe.height, avoe.render_path) == (960, 540, "dirty")
    newton = _config("newton", "--videos-per-test", "1")
    assert newton.render_path == "full"  # not checked on the dirty path: it stays opt-in there


def test_the_render_path_is_part_of_what_a_resume_must_match():
    """A set drawn on one path and resumed on the other would mix two paths' pixels (they differ inside what the
    dirty path redraws), so the path is in the set's identity; the full path keeps the identity it always had."""
    suite = load_suite("counting")
    full = RunConfig(out="x", suite="counting", tests=["ball"], trials=1)
    dirty = dataclasses.replace(full, render_path="dirty")
    assert "render_path" not in full.identity(suite)
    assert dirty.identity(suite)["render_path"] == "dirty"
    assert {k: v for k, v in dirty.identity(suite).items() if k != "render_path"} == full.identity(suite)
