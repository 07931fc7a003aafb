"""`voebench render | params | verify | merge | audit | preview`: the generator's commands."""

from __future__ import annotations

import argparse
import os
import sys

from voebench.errors import UsageError


def register(sub) -> None:
    p = sub.add_parser("render", help="render a suite (mp4 + HDF5 ground truth + manifest)",
                       description="Sample, simulate and render a suite's videos into --out. Re-running into the "
                       "same directory skips finished videos; a directory holding a set made with other settings "
                       "or by other code (see --upgrade), or one voebench did not write, is refused.",
                       formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    p.add_argument("suite", help="grasp-l1, grasp-l2 or avoe")
    p.add_argument("--out", help="output directory (default: renders/<suite>)")
    p.add_argument("--videos-per-test", "--trials", dest="trials", type=int,
                   help="trials per test (Level 1: videos; Level 2 / AVoE: pairs); default: the suite's")
    p.add_argument("--fraction", type=float, help="render this fraction of the suite's default trials (AVoE: 0.1)")
    p.add_argument("--tests", help="comma-separated test names (default: all); `voebench params SUITE` lists them")
    p.add_argument("--categories", help="AVoE: comma-separated categories A-E")
    p.add_argument("--both-conditions", action="store_true",
                   help="AVoE: render surprising videos for training trials too")
    p.add_argument("--seed", type=int, default=0, help="base seed; each video's seed derives from it")
    p.add_argument("--resolution", help="WIDTHxHEIGHT (default: the suite's, 320x240 for GRASP)")
    p.add_argument("--fps", type=float, help="frames per second (default: the suite's, 50 for GRASP)")
    p.add_argument("--seconds", type=float, help="video length (default: the suite's, 10 s for GRASP)")
    p.add_argument("--engine", default="workbench", choices=["workbench", "cycles", "eevee"],
                   help="workbench is fast on CPU; cycles/eevee look better and want a GPU")
    p.add_argument("--samples", type=int, default=32, help="cycles/eevee samples per pixel")
    p.add_argument("--device", default="cpu", choices=["cpu", "cuda", "optix", "hip", "metal"],
                   help="cycles compute device")
    p.add_argument("--passes", default="rgb,depth,segmentation",
                   help="which outputs to render: any of rgb, depth, segmentation")
    p.add_argument("--states-only", action="store_true",
                   help="sample, simulate and write ground truth without rendering (no mp4, depth or masks)")
    p.add_argument("--config", help="YAML file of parameter overrides (see docs/config.md)")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="override one parameter, e.g. camera.fov=60 or shape.size=1.0:1.5 (repeatable)")
    p.add_argument("--workers", type=int, help="worker processes (default: number of cores)")
    p.add_argument("--threads", type=int, default=0, help="render threads per worker (default: cores / workers)")
    p.add_argument("--shard", help="I/N: render only shard I (0-based) of N; merge shards with `voebench merge`")
    p.add_argument("--backend", default="local", choices=["local", "ray"], help="where videos are produced")
    p.add_argument("--ray-address", help="Ray cluster address (default: start a local Ray)")
    p.add_argument("--no-reuse", action="store_true",
                   help="render every frame even if an identical earlier frame exists (for benchmarks)")
    p.add_argument("--upgrade", action="store_true",
                   help="the folder was made by other code: delete the videos of the tests whose code changed "
                   "and make those again (nothing else is touched)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("params", help="print a test's randomization space with its defaults (YAML)")
    p.add_argument("target", help="SUITE or SUITE/TEST, e.g. grasp-l1/shape")
    p.add_argument("--config", help="show the space after these overrides")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.set_defaults(func=cmd_params)

    p = sub.add_parser("verify", help="check every file of a rendered set against its manifest and schema")
    p.add_argument("dir")
    p.add_argument("--repair", action="store_true",
                   help="delete every file of each trial with a broken video or a missing twin (and its manifest "
                   "lines), so that `voebench render` makes exactly those trials again")
    p.set_defaults(func=cmd_verify)

    p = sub.add_parser("merge", help="combine shard manifests into DIR/manifest.jsonl")
    p.add_argument("dir")
    p.set_defaults(func=cmd_merge)

    p = sub.add_parser("audit", help="check the physics of every video from its ground truth")
    p.add_argument("dir")
    p.add_argument("--json", help="also write per-video results to this file")
    p.set_defaults(func=cmd_audit)

    p = sub.add_parser("preview", help="PNG contact sheets per test (plausible and implausible rows)")
    p.add_argument("dir")
    p.add_argument("--out", help="folder for the sheets (default: DIR/preview)")
    p.add_argument("--per-test", type=int, default=4, help="trials per sheet")
    p.add_argument("--frames", type=int, default=6, help="frames per video")
    p.set_defaults(func=cmd_preview)


# ------------------------------------------------------------------------------------------ render


def _suite(name):
    from voebench.scenes import REGISTRY

    return REGISTRY.get(name)


def parse_resolution(text: str) -> tuple[int, int]:
    try:
        w, h = (int(v) for v in text.lower().split("x"))
    except ValueError:
        raise UsageError(f"--resolution {text!r}: expected WIDTHxHEIGHT, e.g. 320x240") from None
    if w < 16 or h < 16 or w % 2 or h % 2:
        raise UsageError(f"--resolution {text!r}: width and height must be even and at least 16")
    return w, h


def parse_shard(text: str | None) -> tuple[int, int]:
    if not text:
        return (0, 1)
    try:
        i, n = (int(v) for v in text.split("/"))
    except ValueError:
        raise UsageError(f"--shard {text!r}: expected I/N, e.g. 0/4") from None
    if n < 1 or not 0 <= i < n:
        raise UsageError(f"--shard {text!r}: need 0 <= I < N")
    return (i, n)


def resolve_overrides(suite, tests: list[str], config_path: str | None, sets: list[str]) -> dict:
    """Per-test {dotted key: value} from a config file and --set items; fails on keys no selected test has."""
    from voebench.generator.params import load_config_file, parse_set

    spaces = {t: suite.space(t).leaves() for t in tests}
    out = {t: {} for t in tests}

    def apply(scope: str | None, key: str, value, origin: str):
        if scope is None and "." in key and key.split(".", 1)[0] in suite.tests:
            scope, key = key.split(".", 1)
        if scope is not None:
            scope = scope.split("/", 1)[1] if scope.startswith(suite.name + "/") else scope
            if "/" in scope:
                return  # another suite's section of a shared config file
            if scope not in suite.tests:
                raise UsageError(f"{origin}: unknown test {scope!r} in suite {suite.name}")
            if scope not in tests:
                return
            targets = [scope]
        else:
            targets = [t for t in tests if key in spaces[t]]
            if not targets:
                raise UsageError(f"{origin}: unknown parameter {key!r} (no selected test of {suite.name} has it; "
                                 f"`voebench params {suite.name}` lists them)")
        for t in targets:
            out[t][key] = value

    if config_path:
        for scope, body in load_config_file(config_path).items():
            for key, value in body.items():
                apply(None if scope == "*" else scope, key, value, f"--config {config_path}: {scope}: {key}")
    for key, value in parse_set(sets):
        apply(None, key, value, f"--set {key}")
    for t in tests:  # validate now, before anything renders
        suite.space(t).override(out[t], where=f"{suite.name}/{t}: ")
    return {t: o for t, o in out.items() if o}


def build_config(args):
    from voebench.generator.runner import PASSES, RunConfig, default_workers

    suite = _suite(args.suite)
    tests = suite.select_tests(args.tests, getattr(args, "categories", None)) if hasattr(suite, "select_tests") \
        else _select(suite, args.tests)
    if args.trials is not None and args.fraction is not None:
        raise UsageError("give --videos-per-test or --fraction, not both")
    if args.fraction is not None and not 0 < args.fraction <= 1:
        raise UsageError(f"--fraction {args.fraction}: must be in (0, 1]")
    trials = args.trials if args.trials is not None else (
        max(1, round(suite.default_trials * args.fraction)) if args.fraction else suite.default_trials)
    if trials < 1:
        raise UsageError(f"--videos-per-test {trials}: must be at least 1")
    width, height = parse_resolution(args.resolution) if args.resolution else suite.default_resolution
    fps = args.fps if args.fps is not None else suite.default_timing.fps
    seconds = args.seconds if args.seconds is not None else suite.default_timing.seconds
    if fps <= 0 or seconds <= 0:
        raise UsageError("--fps and --seconds must be positive")
    passes = () if args.states_only else tuple(p.strip() for p in args.passes.split(",") if p.strip())
    bad = [p for p in passes if p not in PASSES]
    if bad:
        raise UsageError(f"--passes: unknown pass {bad[0]!r}; any of {', '.join(PASSES)}")
    workers = args.workers if args.workers is not None else default_workers()
    if workers < 1:
        raise UsageError("--workers must be at least 1")
    options = suite.options_from_args(args) if hasattr(suite, "options_from_args") else {}
    return RunConfig(
        out=args.out or os.path.join("renders", args.suite), suite=args.suite, tests=tests, trials=trials,
        base_seed=args.seed, seconds=seconds, fps=fps, width=width, height=height, engine=args.engine,
        samples=args.samples, device=args.device, passes=passes,
        overrides=resolve_overrides(suite, tests, args.config, args.set), options=options, workers=workers,
        threads=args.threads, shard=parse_shard(args.shard), reuse_frames=not args.no_reuse)


def _select(suite, tests_arg):
    if not tests_arg:
        return list(suite.tests)
    tests = [t.strip() for t in tests_arg.split(",") if t.strip()]
    for t in tests:
        suite.module(t)  # raises UsageError for unknown names
    return tests


def cmd_render(args) -> int:
    from voebench.generator.runner import run

    if args.backend == "local" and args.ray_address:
        raise UsageError("--ray-address needs --backend ray")
    cfg = build_config(args)
    if args.upgrade:
        from voebench.generator.output import prepare_output

        prepare_output(cfg, _suite(cfg.suite), upgrade=True)
    result = run(cfg, progress=not args.quiet, backend=args.backend, ray_address=args.ray_address)
    rate = result.frames / result.seconds if result.seconds > 0 else 0.0
    print(f"{cfg.out}: {result.done} made, {result.skipped} already there, {len(result.failed)} failed "
          f"({result.seconds:.1f} s, {result.frames} frames, {result.rendered_frames} rendered, {rate:.0f} frames/s)",
          file=sys.stderr)
    for vid, err in result.failed:
        print(f"FAILED {vid}:\n{err}", file=sys.stderr)
    return 1 if result.failed else 0


# ------------------------------------------------------------------------------------------ params


def cmd_params(args) -> int:
    import yaml

    suite_name, _, test = args.target.partition("/")
    suite = _suite(suite_name)
    tests = [test] if test else list(suite.tests)
    for t in tests:
        suite.module(t)
    overrides = resolve_overrides(suite, tests, args.config, args.set)
    doc = {f"{suite.name}/{t}": suite.space(t).override(overrides.get(t, {})).describe() for t in tests}
    print("# Randomization spaces: `lo:hi` is uniform, a list is a choice (Level 1 labels cycle evenly),")
    print("# a plain value is a constant. Override with --set KEY=VALUE or --config FILE.yaml.")
    print(yaml.safe_dump(doc, sort_keys=False, default_flow_style=None, width=110), end="")
    return 0


# ------------------------------------------------------------------------------------------ verify / merge


def cmd_verify(args) -> int:
    from voebench.generator.verify import verify

    problems, n = verify(args.dir, repair=args.repair)
    for p in problems:
        print(p)
    verdict = "OK" if not problems else f"{len(problems)} problem(s)"
    print(f"{args.dir}: {n} videos checked, {verdict}" + (" (broken files deleted; run render again)"
                                                          if problems and args.repair else ""), file=sys.stderr)
    return 0 if not problems else 1


def cmd_merge(args) -> int:
    from voebench.generator.output import merge

    if not os.path.isdir(args.dir):
        raise UsageError(f"{args.dir}: no such directory")
    n = merge(args.dir)
    print(f"{args.dir}/manifest.jsonl: {n} videos", file=sys.stderr)
    return 0


def cmd_audit(args) -> int:
    from voebench.contract import hdf5 as layout
    from voebench.generator.audit import main as audit_main
    from voebench.generator.verify import open_set

    # The audit judges physics, not files: a folder voebench did not write, a corrupt manifest or an HDF5
    # that is not a finished voebench file is refused up front (exit 2) instead of being audited.
    _, entries = open_set(args.dir)
    for e in entries:
        path = os.path.join(args.dir, e["states"])
        if not os.path.exists(path):
            raise UsageError(f"{path}: missing; run `voebench verify --repair {args.dir}` and render again")
        layout.read_root(path)
    return audit_main(args.dir, json_path=args.json)


def cmd_preview(args) -> int:
    from voebench.generator.preview import main as preview_main
    from voebench.generator.verify import open_set

    open_set(args.dir)
    return preview_main(args.dir, out=args.out, per_test=args.per_test, frames=args.frames)
