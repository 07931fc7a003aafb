"""`voebench render | params | verify | merge | audit | preview`: the generator's commands."""

from __future__ import annotations

import argparse
import os
import sys

from voebench.errors import UsageError
from voebench.generator.suite_refs import suite_names


def register(sub) -> None:
    p = sub.add_parser(
        "render",
        help="render a suite (mp4 + HDF5 ground truth + manifest)",
        description="Sample, simulate and render a suite's videos into --out. Re-running into the "
        "same directory skips finished videos; a directory holding a set made with other settings "
        "or by other code or asked in other words (see --upgrade), or one voebench did not write, is refused.",
        formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    p.add_argument("suite", help=suite_names())
    p.add_argument("--out", help="output directory (default: renders/<suite>)")
    p.add_argument(
        "--videos-per-test",
        "--trials",
        dest="trials",
        type=int,
        help="trials per test (Level 1: videos; Level 2 / AVoE: pairs); default: the suite's",
    )
    p.add_argument("--fraction", type=float, help="render this fraction of the suite's default trials (AVoE: 0.1)")
    p.add_argument("--tests", help="comma-separated test names (default: all); `voebench params SUITE` lists them")
    p.add_argument("--categories", help="AVoE: comma-separated categories A-E")
    p.add_argument(
        "--both-conditions", action="store_true", help="AVoE: render surprising videos for training trials too"
    )
    p.add_argument("--seed", type=int, default=0, help="base seed; each video's seed derives from it")
    p.add_argument("--resolution", help="WIDTHxHEIGHT (default: the suite's, 640x480 for GRASP, 960x540 for AVoE)")
    p.add_argument("--fps", type=float, help="frames per second (default: the suite's, 50 for GRASP)")
    p.add_argument("--seconds", type=float, help="video length (default: the suite's, 10 s for GRASP)")
    p.add_argument(
        "--engine",
        default="workbench",
        choices=["workbench", "cycles", "eevee"],
        help="workbench is fast on CPU; cycles/eevee look better and want a GPU",
    )
    p.add_argument("--samples", type=int, default=32, help="cycles/eevee samples per pixel")
    p.add_argument(
        "--device", default="cpu", choices=["cpu", "cuda", "optix", "hip", "metal"], help="cycles compute device"
    )
    p.add_argument(
        "--render-path",
        choices=["full", "dirty"],
        help="dirty: draw the static scene once and then only what moves, full: every distinct state whole "
        "(default with Workbench: the suite's, dirty for GRASP and AVoE; full for cycles/eevee; docs/performance.md)",
    )
    p.add_argument(
        "--passes", default="rgb,depth,segmentation", help="which outputs to render: any of rgb, depth, segmentation"
    )
    p.add_argument(
        "--states-only",
        action="store_true",
        help="sample, simulate and write ground truth without rendering (no mp4, depth or masks)",
    )
    p.add_argument("--config", help="YAML file of parameter overrides (see docs/config.md)")
    p.add_argument(
        "--set",
        action="append",
        default=[],
        metavar="KEY=VALUE",
        help="override one parameter, e.g. camera.fov=60 or shape.size=1.0:1.5 (repeatable)",
    )
    p.add_argument(
        "--sweep",
        action="append",
        default=[],
        metavar="TEST[.KEY]=LEVELS",
        help="graded violations: per trial, the plausible video and one violated video per level of TEST's "
        "violation (LEVELS: a list 0,5,10 or lo:hi:n, in the test's unit; 0 is the plausible video itself). "
        "Without --tests only the swept tests render. `voebench params SUITE` shows each test's unit and "
        "range; docs/psychometrics.md (repeatable)",
    )
    p.add_argument("--workers", type=int, help="worker processes (default: number of cores)")
    p.add_argument("--threads", type=int, default=0, help="render threads per worker (default: cores / workers)")
    p.add_argument("--shard", help="I/N: render only shard I (0-based) of N; merge shards with `voebench merge`")
    p.add_argument("--backend", default="local", choices=["local", "ray"], help="where videos are produced")
    p.add_argument("--ray-address", help="Ray cluster address (default: start a local Ray)")
    p.add_argument(
        "--no-reuse",
        action="store_true",
        help="render every frame even if an identical earlier frame exists (for benchmarks)",
    )
    p.add_argument(
        "--upgrade",
        action="store_true",
        help="the folder was made by other code: delete the videos of the tests whose code changed "
        "and make those again (nothing else is touched); its questions are in other words (the prompts "
        "changed): rewrite their texts in the manifest and the HDF5 files, rendering nothing",
    )
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.set_defaults(func=cmd_render)

    p = sub.add_parser("params", help="print a test's randomization space with its defaults (YAML)")
    p.add_argument("target", help="SUITE or SUITE/TEST, e.g. grasp-l1/shape")
    p.add_argument("--config", help="show the space after these overrides")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE")
    p.set_defaults(func=cmd_params)

    p = sub.add_parser("verify", help="check every file of a rendered set against its manifest and schema")
    p.add_argument("dir")
    p.add_argument(
        "--repair",
        action="store_true",
        help="delete every file of each trial with a broken video or a missing twin (and its manifest "
        "lines), so that `voebench render` makes exactly those trials again",
    )
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
    from voebench.generator.suite import load_suite

    return load_suite(name)


def parse_resolution(text: str) -> tuple[int, int]:
    from voebench.generator.limits import parse_resolution as parse

    return parse(text)


def parse_shard(text: str | None) -> tuple[int, int]:
    if not text:
        return (0, 1)
    try:
        parts = text.split("/")
        if len(parts) != 2:
            raise ValueError
        i, n = (int(v) for v in parts)
    except ValueError:
        raise UsageError(f"--shard {text!r}: expected I/N, e.g. 0/4") from None
    if n < 1 or not 0 <= i < n:
        raise UsageError(f"--shard {text!r}: need 0 <= I < N")
    return (i, n)


def resolve_overrides(suite, tests: list[str], config_path: str | None, sets: list[str]) -> dict:
    """Per-test {dotted key: value} from a config file and --set items; fails on keys no selected test has. The
    values are parsed (and checked) once, where the spaces are resolved (`RunConfig.resolve`, `cmd_params`)."""
    from voebench.generator.params import load_config_file, parse_set

    spaces = {t: suite.space(t).leaves() for t in tests}
    out: dict[str, dict] = {t: {} for t in tests}

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
                raise UsageError(
                    f"{origin}: unknown parameter {key!r} (no selected test of {suite.name} has it; "
                    f"`voebench params {suite.name}` lists them)"
                )
        for t in targets:
            out[t][key] = value

    if config_path:
        for scope, body in load_config_file(config_path).items():
            for key, value in body.items():
                apply(None if scope == "*" else scope, key, value, f"--config {config_path}: {scope}: {key}")
    for key, value in parse_set(sets):
        apply(None, key, value, f"--set {key}")
    return {t: o for t, o in out.items() if o}


def parse_levels(text: str) -> list[float]:
    """`0,5,10` or `lo:hi:n` (n evenly spaced levels from lo to hi) as floats; UsageError naming the text."""
    import numpy as np

    try:
        if ":" in text:
            lo, hi, n = text.split(":")
            count = int(n)
            if count < 1:
                raise ValueError
            return [float(x) for x in np.linspace(float(lo), float(hi), count)]
        return [float(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"--sweep: levels {text!r}: expected a list 0,5,10 or lo:hi:n with n >= 1") from None


def parse_sweeps(suite, items: list[str]) -> dict:
    """test -> (the Level leaf's key, its nonzero levels ascending) from --sweep items, every level checked
    against its leaf (a level the test cannot make is refused here, naming it)."""
    from voebench.generator.params import Level

    out: dict = {}
    for item in items:
        target, eq, text = item.partition("=")
        if not eq or not text.strip():
            raise UsageError(f"--sweep {item!r}: expected TEST[.KEY]=LEVELS, e.g. t08_inertia_bounce.violation=0:40:7")
        test, _, key = target.strip().partition(".")
        if suite.name in ("grasp-l1",) or not suite.paired():
            raise UsageError(f"--sweep: suite {suite.name} has no violated videos to grade")
        suite.module(test)  # UsageError for an unknown test
        levels_of = {k: leaf for k, leaf in suite.space(test).leaves().items() if isinstance(leaf, Level)}
        reason = suite.binary_reason(test)
        if not levels_of or reason:
            raise UsageError(
                f"--sweep {test}: its violation is binary, with no size to grade" + (f" ({reason})" if reason else "")
            )
        if not key:
            own = [k for k in levels_of if k == "violation" or k.endswith("." + test)]
            if len(own) != 1:
                raise UsageError(f"--sweep {test}: name the level to sweep, one of {', '.join(levels_of)}")
            key = own[0]
        if key not in levels_of:
            raise UsageError(f"--sweep {test}.{key}: not a graded violation of {test}; one of {', '.join(levels_of)}")
        if test in out:
            raise UsageError(f"--sweep {test}: given twice")
        leaf = levels_of[key]
        levels = sorted({leaf.check(f"--sweep {test}.{key}", x, zero=True) for x in parse_levels(text)})
        nonzero = tuple(x for x in levels if x > 0)
        if not nonzero:
            raise UsageError(f"--sweep {test}.{key}={text}: no level above 0 (0 is the plausible video itself)")
        out[test] = (key, nonzero)
    return out


def _without_swept(overrides: dict, sweep: dict) -> dict:
    for test, (key, _) in sweep.items():
        if key in overrides.get(test, {}):
            raise UsageError(f"--set {test}.{key}: the sweep sets this level; give it to --sweep only")
    return overrides


def build_config(args):
    """The run's settings from the command line, every value checked (with the reasons in generator/limits.py)
    before anything is written."""
    from voebench.generator import limits
    from voebench.generator.runner import PASSES, RunConfig, default_workers
    from voebench.generator.suite import Timing

    suite = _suite(args.suite)
    tests = suite.select_tests(args.tests, args.categories)
    sweep = parse_sweeps(suite, args.sweep)
    if sweep and not (args.tests or args.categories):
        tests = [t for t in tests if t in sweep]
    for t in sweep:
        if t not in tests:
            raise UsageError(f"--sweep {t}: {t} is not among the tests asked for (--tests)")
    if args.trials is not None and args.fraction is not None:
        raise UsageError("give --videos-per-test or --fraction, not both")
    if args.fraction is not None:
        limits.check_fraction(args.fraction)
    trials = (
        args.trials
        if args.trials is not None
        else (max(1, round(suite.default_trials * args.fraction)) if args.fraction else suite.default_trials)
    )
    limits.check_count("--videos-per-test", trials, 1, limits.TRIALS_MAX, " (video ids have a 5-digit index)")
    width, height = parse_resolution(args.resolution) if args.resolution else suite.default_resolution
    fps = limits.check_fps(args.fps if args.fps is not None else suite.default_timing.fps)
    seconds = limits.check_seconds(args.seconds if args.seconds is not None else suite.default_timing.seconds, fps)
    passes = () if args.states_only else tuple(p.strip() for p in args.passes.split(",") if p.strip())
    bad = [p for p in passes if p not in PASSES]
    if bad:
        raise UsageError(f"--passes: unknown pass {bad[0]!r}; any of {', '.join(PASSES)}")
    if not passes and not args.states_only:
        raise UsageError(f"--passes {args.passes!r}: name at least one of {', '.join(PASSES)} (or use --states-only)")
    limits.check_memory(width, height, Timing(seconds, fps).n_frames, not args.no_reuse, passes)
    workers = args.workers if args.workers is not None else default_workers()
    limits.check_count("--workers", workers, 1, limits.WORKERS_MAX)
    limits.check_count("--threads", args.threads, 0, limits.THREADS_MAX, " (0: cores / workers)")
    limits.check_count("--samples", args.samples, 1, limits.SAMPLES_MAX)
    render_path = args.render_path or (suite.default_render_path if args.engine == "workbench" else "full")
    if render_path == "dirty" and args.engine != "workbench":
        raise UsageError(f"--render-path dirty needs --engine workbench, not {args.engine!r}")
    limits.check_seed(args.seed)
    shard = parse_shard(args.shard)
    options = suite.options_from_args(args)
    return RunConfig(
        out=args.out or os.path.join("renders", args.suite),
        suite=args.suite,
        tests=tests,
        trials=trials,
        base_seed=args.seed,
        seconds=seconds,
        fps=fps,
        width=width,
        height=height,
        engine=args.engine,
        samples=args.samples,
        device=args.device,
        render_path=render_path,
        passes=passes,
        overrides=_without_swept(resolve_overrides(suite, tests, args.config, args.set), sweep),
        sweep=sweep,
        options=options,
        workers=workers,
        threads=args.threads,
        shard=shard,
        reuse_frames=not args.no_reuse,
    ).resolve(suite)  # every override parsed and checked here, once, before anything renders


def cmd_render(args) -> int:
    from voebench.generator.runner import run

    if args.backend == "local" and args.ray_address:
        raise UsageError("--ray-address needs --backend ray")
    cfg = build_config(args)
    result = run(cfg, progress=not args.quiet, backend=args.backend, ray_address=args.ray_address, upgrade=args.upgrade)
    rate = result.frames / result.seconds if result.seconds > 0 else 0.0
    print(
        f"{cfg.out}: {result.done} made, {result.skipped} already there, {len(result.failed)} failed "
        f"({result.seconds:.1f} s, {result.frames} frames, {result.rendered_frames} rendered, {rate:.0f} frames/s)",
        file=sys.stderr,
    )
    for test in result.empty_tests:
        print(
            f"note: {cfg.suite}/{test}: none of the {cfg.trials} trials made of its category belongs to {test} (they "
            "fall into the sub-types asked for by their draw); ask for more with --videos-per-test, or ask for "
            f"{test} alone",
            file=sys.stderr,
        )
    if result.failed:  # each failure was reported in one line as it happened; the tracebacks are in the log
        from voebench.generator.progress import ERRORS_LOG, failure_summary

        print(failure_summary(result.failed, os.path.join(cfg.out, ERRORS_LOG)), file=sys.stderr)
    return 1 if result.failed else 0


# ------------------------------------------------------------------------------------------ params


def cmd_params(args) -> int:
    suite_name, _, test = args.target.partition("/")
    suite = _suite(suite_name)
    tests = [test] if test else list(suite.tests)
    for t in tests:
        suite.module(t)
    overrides = resolve_overrides(suite, tests, args.config, args.set)
    spaces = {t: suite.space(t).override(overrides.get(t, {}), where=f"{suite.name}/{t}: ") for t in tests}
    print("# Randomization spaces: `lo:hi` is uniform, a list is a choice (Level 1 labels cycle evenly),")
    print("# a plain value is a constant. Override with --set KEY=VALUE or --config FILE.yaml; the comment")
    print("# after a number says which values it may take (its domain).")
    for t in tests:
        print("\n".join(space_yaml(f"{suite.name}/{t}", spaces[t].tree)))
        binary = suite.binary_reason(t)
        if binary:
            print(f"  # violation: binary, no size to grade or sweep: {binary}")
    return 0


def space_yaml(name: str, tree: dict, indent: str = "") -> list[str]:
    """A space as YAML (one leaf a line, in declaration order) with each leaf's domain as a comment."""
    import yaml

    from voebench.generator.params import Dist, Level

    def scalar(value) -> str:
        text = yaml.safe_dump(value, default_flow_style=True, width=10**6).strip()
        return text[:-4].rstrip() if text.endswith("\n...") else text

    lines = [f"{indent}{scalar(name)}:"]
    for key, leaf in tree.items():
        if isinstance(leaf, dict):
            lines += space_yaml(key, leaf, indent + "  ")
            continue
        value = leaf.describe() if isinstance(leaf, Dist) else (list(leaf) if isinstance(leaf, tuple) else leaf)
        line = f"{indent}  {scalar(key)}: {scalar(value)}"
        domain = getattr(leaf, "domain", None)
        if isinstance(leaf, Level):
            note = (
                f"graded violation in {leaf.unit}: {leaf.what}; 0 < level <= {leaf.hi:g} (0: the plausible twin, "
                f"a --sweep level); default: {leaf.default}"
            )
            lines.append(f"{line:<44}  # {note}")
        else:
            lines.append(f"{line:<44}  # {domain}" if domain is not None else line)
    return lines


# ------------------------------------------------------------------------------------------ verify / merge


def _existing_set(path: str, need_manifest: bool = False) -> None:
    """The folder a command reads must exist and be a folder (and, for audit/preview, hold a manifest)."""
    if not os.path.exists(path):
        raise UsageError(f"{path}: no such directory")
    if not os.path.isdir(path):
        raise UsageError(f"{path}: not a directory (give the folder of a rendered set)")
    if need_manifest and not os.path.isfile(os.path.join(path, "manifest.jsonl")):
        raise UsageError(f"{path}: no manifest.jsonl (not a rendered set, or shards not merged: voebench merge)")


def _writable_file(flag: str, path: str) -> None:
    """A file a command will write at the end: check its folder now, not after the work is done."""
    folder = os.path.dirname(os.path.abspath(path))
    if os.path.isdir(path):
        raise UsageError(f"{flag} {path}: is a directory")
    if not os.path.isdir(folder):
        raise UsageError(f"{flag} {path}: no such directory {folder}")


def cmd_verify(args) -> int:
    from voebench.generator.verify import verify

    _existing_set(args.dir)
    problems, n = verify(args.dir, repair=args.repair)
    for p in problems:
        print(p)
    verdict = "OK" if not problems else f"{len(problems)} problem(s)"
    print(
        f"{args.dir}: {n} videos checked, {verdict}"
        + (" (broken files deleted; run render again)" if problems and args.repair else ""),
        file=sys.stderr,
    )
    return 0 if not problems else 1


def cmd_merge(args) -> int:
    from voebench.generator.output import merge

    _existing_set(args.dir)
    n = merge(args.dir)
    print(f"{args.dir}/manifest.jsonl: {n} videos", file=sys.stderr)
    return 0


def cmd_audit(args) -> int:
    from voebench.contract import hdf5 as layout
    from voebench.generator.audit import main as audit_main
    from voebench.generator.verify import open_set

    _existing_set(args.dir, need_manifest=True)
    if args.json:
        _writable_file("--json", args.json)
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

    _existing_set(args.dir, need_manifest=True)
    if args.per_test < 1 or args.frames < 1 or args.frames > 64:
        raise UsageError(
            f"--per-test {args.per_test} --frames {args.frames}: need --per-test >= 1 and "
            "1 <= --frames <= 64 (frames are laid out in one row)"
        )
    if args.out and os.path.exists(args.out) and not os.path.isdir(args.out):
        raise UsageError(f"--out {args.out}: not a directory")
    open_set(args.dir)
    return preview_main(args.dir, out=args.out, per_test=args.per_test, frames=args.frames)
