"""`voebench evaluate`, `voebench report`, `voebench export` (registered by src/voebench/cli.py).

Only the standard library is imported at module level: `voebench --help` stays instant and the commands work
without the `eval` extra unless an `hf` model is asked for.
"""

from __future__ import annotations

import argparse
import os
import sys

from voebench.errors import UsageError
from voebench.evaluate import ask, checks, cold_start, models
from voebench.evaluate.models import kind as model_kinds
from voebench.evaluate.surprise import cli as surprise_cli

STRATEGY_CHOICES = ("zero-shot", "cot", "one-shot", "open", "text")


def _frame_store(where: str | None) -> str | None:
    """The frame store's folder for `--frame-store` (None: off), refused in one line if it cannot be a folder."""
    from voebench.evaluate.frame_store import OFF, default_dir

    if where == OFF:
        return None
    root = os.path.abspath(where or default_dir())
    if os.path.exists(root) and not os.path.isdir(root):
        raise UsageError(f"--frame-store {root}: exists and is not a folder")
    return root


def _batch_size_cache(where: str | None) -> str:
    """`--batch-size auto`'s sizes file: in the frame store's folder (the default one with `--frame-store off`)."""
    from voebench.evaluate.batch_size import cache_file

    return cache_file(_frame_store(None if where == "off" else where))


def _split(values: list[str] | None) -> list[str] | None:
    if not values:
        return None
    out: list[str] = []
    for v in values:
        out.extend(x for x in v.split(",") if x)
    return out or None


def _int_at_least(name: str, low: int, bound: str):
    """argparse type: a whole number >= low; errors name the flag and say the bound (`bound`)."""

    def conv(s: str) -> int:
        try:
            v = int(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {s!r}") from None
        if v < low:
            raise argparse.ArgumentTypeError(f"{name} must be {bound}")
        return v

    return conv


def _batch_size(s: str) -> int | str:
    """argparse type of --batch-size: a whole number >= 1, or `auto` (evaluate/batch_size.py)."""
    return "auto" if s.strip().lower() == "auto" else positive_int("--batch-size")(s)


def positive_int(name: str):
    """argparse type: a whole number >= 1; errors name the flag (shared by the evaluate-side commands)."""
    return _int_at_least(name, 1, "at least 1")


def _non_negative(name: str):
    return _int_at_least(name, 0, "0 or more")


def check_torch_device(name: str) -> None:
    """UsageError unless `name` (a `--device` value) is "auto" or a torch device this machine has; torch is imported
    here, so call it once the command knows torch is installed (shared by the evaluate-side training commands)."""
    if name == "auto":
        return
    import torch  # optional: the `eval` extra

    try:
        dev = torch.device(name)
    except RuntimeError:
        raise UsageError(f"--device {name!r} is not a torch device") from None
    if dev.type == "cuda" and not torch.cuda.is_available():
        raise UsageError("--device cuda but CUDA is not available")


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "evaluate",
        help="score a model on a rendered set (VLMs: GRASP protocol; world models: surprise)",
        description="Ask a video-language model the questions of a rendered set and score its answers. "
        "Re-running the same command resumes: only calls missing from RUN_DIR/cache.jsonl are made.",
    )
    p.add_argument("dataset", metavar="DIR", help="rendered set (holds manifest.jsonl) or NEWTON question set")
    p.add_argument(
        "--model",
        required=True,
        help=f"{model_kinds.spec_help()} | {model_kinds.world_model_help()} (world models, scored by surprise: "
        "docs/world-models.md)",
    )
    p.add_argument("--out", required=True, metavar="RUN_DIR", help="run directory (created; reused to resume)")
    p.add_argument("--suite", action="append", help="only these suites (repeatable or comma-separated)")
    p.add_argument("--tests", action="append", help="only these tests: name or suite/name (repeatable, commas)")
    p.add_argument("--strategy", default="zero-shot", choices=STRATEGY_CHOICES)
    p.add_argument("--repeats", type=positive_int("--repeats"), default=3, help="runs per question (paper: 3)")
    p.add_argument("--seed", type=int, default=0, help="base seed of the repeat seeds and one-shot examples")
    p.add_argument(
        "--limit",
        type=positive_int("--limit"),
        help="at most N videos per test (a pair is never cut: the last video's twin comes along)",
    )
    p.add_argument(
        "--complete-pairs-only",
        action="store_true",
        help="a paired set missing one video of some pairs is refused; with this, only the complete "
        "pairs are scored (the number dropped is printed and kept in results.json)",
    )
    ask.add_arguments(p)  # frames, answer length, sampling, system prompt: shared with `export lmms-eval`
    p.add_argument(
        "--batch-size",
        type=_batch_size,
        default=1,
        help="hf: conversations per generate call; openai: requests per round; auto: hf on a GPU, the largest "
        "that fits (searched once per model, sampling, resolution and GPU, kept beside the frame store), "
        "4 on a CPU; other adapters, their own default",
    )
    p.add_argument(
        "--warmup",
        action="store_true",
        help="hf on CUDA: generate the first batch once, discarded, before timing (for throughput measurements: "
        "run.json then reports the speed after it; it costs a whole run one batch, docs/evaluate.md)",
    )
    p.add_argument(
        "--frame-store",
        metavar="DIR|off",
        help="keep decoded clips on disk and read them back in later runs, for every model, repeat and strategy "
        "(content-addressed by the video's sha256 and the frames sampled; default: $VOEBENCH_FRAME_STORE, else "
        "~/.cache/voebench/frames; off: decode every run afresh)",
    )
    p.add_argument(
        "--num-workers",
        type=_non_negative("--num-workers"),
        help="processes that decode frames ahead of the model while the next batch is prepared in the background "
        "(default: cores - 2, at least 1, at most 16; 0 = decode in threads and prepare each batch in line)",
    )
    p.add_argument(
        "--replicas",
        type=positive_int("--replicas"),
        help="processes each holding a copy of the model, each answering whole batches (the batches one process "
        "would run): a small model on one GPU keeps it busier; with --device cuda:0,cuda:1 one per GPU "
        "(default: 1, or one per listed device; docs/evaluate.md says when 2 pay)",
    )
    model_kinds.add_arguments(p)  # each registered kind's own options, in its own group (evaluate/models/kinds/)
    p.add_argument("--no-progress", action="store_true", help="no progress bar")
    surprise_cli.add_arguments(p)
    p.set_defaults(func=cmd_evaluate)

    r = subparsers.add_parser(
        "report",
        help="tables, results.json and the bar chart of evaluation runs",
        description="(Re)compute results.json, report.md and accuracy.png of each RUN_DIR.",
    )
    r.add_argument("runs", nargs="+", metavar="RUN_DIR")
    r.add_argument("--compare", metavar="PNG", help="with several runs: a GRASP Figure 3 style comparison chart")
    r.add_argument("--suite", help="suite averaged in --compare (default: grasp-l2 if present)")
    r.add_argument("--bootstrap", type=positive_int("--bootstrap"), default=2000, help="bootstrap resamples")
    r.add_argument(
        "--complete-pairs-only",
        action="store_true",
        help="a run whose samples hold incomplete pairs is refused; with this, only complete pairs "
        "are scored (the number dropped is printed and kept in results.json)",
    )
    r.add_argument(
        "--psychometric",
        metavar="DIR",
        help="also fit psychometric curves of the graded tests (issue 24) of all the runs together: per test a "
        "table and one figure with every run on the same axes, in DIR (docs/psychometrics.md)",
    )
    r.add_argument(
        "--psychometric-boot",
        type=_non_negative("--psychometric-boot"),
        default=1000,
        help="bootstrap draws over trials per psychometric fit (0: no intervals; default 1000)",
    )
    r.set_defaults(func=cmd_report)

    x = subparsers.add_parser(
        "export",
        help="GRASP results.csv of a run, an lmms-eval task folder or a Hugging Face datasets folder of a set",
        description="grasp-csv RUN_DIR --out results.csv|DIR ; lmms-eval DATASET --out DIR ; "
        "hf-dataset DATASET --out DIR",
    )
    x.add_argument("format", choices=("grasp-csv", "lmms-eval", "hf-dataset"))
    x.add_argument("source", metavar="SRC", help="grasp-csv: a run directory; lmms-eval, hf-dataset: a rendered set")
    x.add_argument("--out", required=True)
    x.add_argument("--repeat", type=int, help="grasp-csv: only this repeat (default: all, one after the other)")
    x.add_argument("--name", default="voebench", help="lmms-eval: task name prefix")
    x.add_argument("--suite", action="append")
    x.add_argument("--tests", action="append")
    x.add_argument("--limit", type=positive_int("--limit"))
    x.add_argument(
        "--copy-videos",
        action="store_true",
        help="lmms-eval: copy the mp4s into the folder (frames sampled by --num-frames/--fps are always written "
        "into it, as clips)",
    )
    x.add_argument("--no-open", action="store_true", help="lmms-eval: leave out open questions")
    x.add_argument(
        "--complete-pairs-only",
        action="store_true",
        help="lmms-eval, hf-dataset: export only the complete pairs of a set that misses one video of some pairs",
    )
    asking = x.add_argument_group("lmms-eval: how the model is asked (the options and defaults of `evaluate`)")
    ask.add_arguments(asking)
    x.set_defaults(func=cmd_export)


def cmd_evaluate(args) -> int:
    from voebench.evaluate import frames as frames_mod
    from voebench.evaluate import report as report_mod
    from voebench.evaluate.run import EvalConfig, EvalRunner
    from voebench.evaluate.tasks import build_samples, load_manifest, select_counted

    if is_world_model(args.model):
        if (args.replicas or 1) > 1:
            raise UsageError("--replicas: world models are scored in one process (drop --replicas)")
        return _evaluate_world_model(args)
    asking = ask.from_args(args)  # the same settings `export lmms-eval` writes into a task folder
    model_kinds.parse_spec(args.model)  # a bad spec fails before anything is loaded
    from voebench.evaluate.newton import questionset

    if questionset.is_question_set(args.dataset):  # NEWTON text questions (docs/newton.md): no videos
        if args.suite or args.tests:
            raise UsageError("--suite/--tests select videos of a rendered set; a NEWTON question set takes --limit")
        samples, qmeta = questionset.build_samples(args.dataset, args.strategy, args.limit)
        dropped = 0
        dataset_info = {k: qmeta.get(k) for k in ("format", "voebench_version", "repository", "track", "n", "seed")}
    else:
        manifest = load_manifest(args.dataset)
        entries, dropped = select_counted(
            manifest, _split(args.suite), _split(args.tests), args.limit, complete_pairs_only=args.complete_pairs_only
        )
        if dropped:
            print(
                f"--complete-pairs-only: {dropped} incomplete pair(s) dropped; scoring the complete ones",
                file=sys.stderr,
            )
        if not entries:
            raise UsageError(f"{args.dataset}: the selection is empty")
        _check_videos(args.dataset, entries, args.strategy)
        samples = build_samples(manifest, entries, args.strategy, seed=args.seed)
        dataset_info = {
            "generator_version": manifest.dataset.get("generator_version"),
            "schema_version": manifest.dataset.get("schema_version"),
            "videos": len(manifest.entries),
        }  # dataset.json holds no counts: count here
    if not samples:
        raise UsageError(f"--strategy {args.strategy}: the selected videos have no such questions")
    checks.check_out_folder(args.out, kind="evaluate")
    asked = {"max_new_tokens": asking.max_new_tokens, "do_sample": asking.do_sample, "temperature": asking.temperature}
    auto_batch = args.batch_size == "auto"  # the runner searches (evaluate/batch_size.py)
    batch: dict = {}
    if auto_batch:  # openai keeps its own default (its concurrency); every other kind starts at 1
        batch["batch_size"] = None if model_kinds.parse_spec(args.model).name == "openai" else 1
    store = _frame_store(args.frame_store)
    workers = frames_mod.default_workers() if args.num_workers is None else args.num_workers
    from voebench.evaluate.models.replicas import ReplicaError

    early = _start_decoding(args, samples, asking, store, workers)  # while the model loads (evaluate/cold_start.py)
    cold_start.light_exit()  # the process's exit skips its last full garbage collection (evaluate/cold_start.py)
    try:
        adapter = _adapter(args, {**vars(args), **asked, **batch}, store, workers)  # the kind reads its own options
    except ReplicaError as e:  # a replica could not load its model (out of memory, ...): one line
        cold_start.drop_decoding()
        frames_mod.use_workers(0)
        print(f"voebench evaluate: {e}", file=sys.stderr)
        return 1
    except BaseException:
        cold_start.drop_decoding()
        frames_mod.use_workers(0)
        raise
    check_replay_covers(adapter, [s.sample_id for s in samples], "--model")
    cfg = EvalConfig(
        strategy=args.strategy,
        repeats=args.repeats,
        seed=args.seed,
        num_frames=asking.num_frames,
        fps=asking.fps,
        system_prompt=asking.system_prompt_for(args.model),
        num_workers=workers,
        frame_store=store,
        warmup=args.warmup,
        decoding_started=early > 0,
        batch_size_auto=auto_batch,
        batch_size_cache=_batch_size_cache(args.frame_store) if auto_batch else None,
    )
    extra = {
        "dataset": os.path.abspath(args.dataset),
        "model_spec": args.model,
        "selection": {"suites": _split(args.suite), "tests": _split(args.tests), "limit": args.limit},
        "dataset_info": dataset_info,
        "complete_pairs_only": args.complete_pairs_only,
        "incomplete_pairs_dropped": dropped,
    }
    runner = EvalRunner(adapter, samples, args.out, cfg, progress=not args.no_progress, extra_run_info=extra)
    try:
        jobs = runner.run()
    except ReplicaError as e:  # a replica died: one line; the answers written so far are kept in the cache
        print(f"voebench evaluate: {e}", file=sys.stderr)
        return 1
    finally:
        adapter.close()
    results = report_mod.write_report(args.out, complete_pairs_only=args.complete_pairs_only)
    failed = sum(1 for j in jobs if not j.done)
    print(
        f"{len(jobs)} sample-repeats, {runner.calls} model calls made, "
        f"{len(jobs) - failed} scored -> {os.path.join(args.out, 'results.json')}",
        file=sys.stderr,
    )
    for s in results["suites"]:
        print(
            f"  {s['suite']:10s} {s['kind']:12s} mean acc {100 * s['mean_acc']:5.1f}%  "
            f"(chance {100 * s['chance']:.0f}%, invalid {100 * s['invalid_rate']:.1f}%)",
            file=sys.stderr,
        )
    for c in results.get("careful") or []:  # the same yes/no answers read by a careful reader (report.md)
        print(
            f"  {c['suite']:10s} {c['kind']:12s} careful reader {100 * c['careful_acc']:5.1f}%  "
            f"(unparsed {100 * c['careful_unparsed']:.1f}%, {c['read_differently']} answers read differently)",
            file=sys.stderr,
        )
    if failed:
        print(
            f"{failed} sample-repeats have failed calls (see 'error' in samples.jsonl); "
            "run the same command again to retry only those",
            file=sys.stderr,
        )
        return 1
    return 0


def _start_decoding(args, samples: list, asking, store: str | None, workers: int) -> int:
    """Issue 28, a cold run, with early decoding on (by default; `VOEBENCH_COLD_START` without `decode` is off):
    the decoding workers started before the model loads and the first batches' clips held, to be queued once the
    imports are done (evaluate/cold_start.py),
    for one `hf:` process with a fixed batch size starting a fresh run folder (a resumed run's first clips may be
    answered already); the clips held (0: not started)."""
    from voebench.evaluate import cold_start
    from voebench.evaluate.models import replicas as rep
    from voebench.evaluate.run import CACHE

    cold_start.mark("cli_start")
    cold_start.mode()  # a bad VOEBENCH_COLD_START is refused here, before anything starts
    if model_kinds.parse_spec(args.model).name != "hf" or args.batch_size == "auto" or (args.replicas or 1) > 1:
        return 0
    if len(rep.parse_devices(getattr(args, "device", None))) > 1 or os.path.exists(os.path.join(args.out, CACHE)):
        return 0
    batch = int(args.batch_size)
    ahead = max(2 * batch, 2 * workers)  # what the runner decodes ahead of its first batch (EvalConfig's prefetch)
    return cold_start.start_decoding(
        cold_start.first_clips(samples, asking.num_frames, asking.fps, batch + ahead), workers, store
    )


def _adapter(args, options: dict, store: str | None, workers: int) -> models.Adapter:
    """The run's adapter: one in this process, or with `--replicas N` (or a list of devices) N processes each
    holding one (evaluate/models/replicas.py), the decoding workers shared out between them."""
    from voebench.evaluate.models import replicas as rep

    devices = rep.parse_devices(options.get("device"))
    n = rep.replica_count(args.replicas, devices)
    if args.replicas is None and len(devices) == 1:
        return models.make_adapter(args.model, **options)
    kind = model_kinds.parse_spec(args.model).name
    if kind in ("openai", "replay"):
        raise UsageError(f"--replicas: --model {kind}: has nothing to replicate (openai: use --concurrency)")
    if args.batch_size == "auto":
        raise UsageError(
            "--replicas with --batch-size auto: find the size with --replicas 1 (it is kept), then pass it"
        )
    if n == 1 and len(devices) == 1:
        return models.make_adapter(args.model, **options)
    return rep.ReplicaPool(args.model, options, n, frame_store=store, workers=max(1, workers // n) if workers else 0)


def _check_videos(dataset: str, entries: list[dict], strategy: str) -> None:
    """A --states-only set has ground truth but no mp4s: only the text-only control (`--strategy text`, which asks
    about the written description) can score it."""
    if strategy == "text":
        return
    missing = [e["id"] for e in entries if not e.get("video")]
    if missing:
        raise UsageError(
            f"{dataset}: {len(missing)} of {len(entries)} selected videos have no mp4 (a --states-only render, e.g. "
            f"{missing[0]}); only --strategy text scores it without pixels"
        )


def check_replay_covers(adapter, sample_ids: list[str], flag: str) -> None:
    """A replay file that answers none of the questions asked is the wrong file: refuse it before a run of nothing
    but failed calls is written (a file that answers some of them is a partial run; the rest are reported missing)."""
    answered = getattr(adapter, "answered", None)
    if answered is None or not sample_ids or answered(sample_ids):
        return
    raise UsageError(
        f"{flag} {adapter.name}: answers none of the {len(set(sample_ids))} questions asked (its ids look like "
        f"{adapter.example_id()!r}, the questions' like {sample_ids[0]!r})"
    )


def is_world_model(spec: str) -> bool:
    """Whether `--model spec` names a world model (a kind evaluate/surprise/kinds/ registers in `WORLD_MODELS`,
    scored by surprise) rather than a model asked questions."""
    return spec.partition(":")[0] in model_kinds.WORLD_MODELS


def _evaluate_world_model(args) -> int:
    """--model vjepa2:...: no questions; the videos' surprise (evaluate/surprise/, docs/world-models.md)."""
    from voebench.evaluate.tasks import load_manifest, select_counted

    manifest = load_manifest(args.dataset)
    entries, dropped = select_counted(
        manifest, _split(args.suite), _split(args.tests), args.limit, complete_pairs_only=args.complete_pairs_only
    )
    if not entries:
        raise UsageError(f"{args.dataset}: the selection is empty")
    extra = {
        "dataset": os.path.abspath(args.dataset),
        "selection": {"suites": _split(args.suite), "tests": _split(args.tests), "limit": args.limit},
        "incomplete_pairs_dropped": dropped,
    }
    return surprise_cli.cmd_evaluate_surprise(args, manifest, entries, extra)


def cmd_report(args) -> int:
    from voebench.evaluate import report as report_mod
    from voebench.evaluate.surprise import report as surprise_report

    for run in args.runs:  # every run is checked before any report is rewritten
        _check_run(run)
    if args.psychometric:
        try:
            from voebench.evaluate.psychometrics.report import MARKS  # scipy: the `eval` extra
        except ImportError as e:
            raise UsageError(f"--psychometric needs {e.name or 'scipy'} (pip install 'voebench[eval]')") from None
        checks.check_out_folder(args.psychometric, MARKS, flag="--psychometric")
    summaries = []
    for run in args.runs:
        if surprise_report.is_surprise_run(run):  # a world-model run: its own tables (no questions)
            surprise_report.write_report(run, n_boot=args.bootstrap)
            with open(os.path.join(run, surprise_report.REPORT), encoding="utf-8") as fh:
                sys.stdout.write(fh.read())
            continue
        res = report_mod.write_report(run, n_boot=args.bootstrap, complete_pairs_only=args.complete_pairs_only)
        if res["incomplete_pairs_dropped"]:
            print(
                f"{run}: {res['incomplete_pairs_dropped']} incomplete pair(s) dropped (--complete-pairs-only)",
                file=sys.stderr,
            )
        with open(os.path.join(run, "report.md"), encoding="utf-8") as fh:
            sys.stdout.write(fh.read())
        summaries.append((res["run"].get("model") or os.path.basename(os.path.normpath(run)), res))
    if args.compare:
        if not report_mod.plot_comparison(summaries, args.compare, args.suite):
            raise UsageError("--compare: no yes/no questions in the runs to compare")
        print(f"comparison chart -> {args.compare}", file=sys.stderr)
    if args.psychometric:
        _psychometric_report(args.runs, args.psychometric, args.psychometric_boot)
    return 0


def _psychometric_report(runs: list[str], out: str, n_boot: int) -> None:
    """`report --psychometric DIR`: every run's responses per graded test, fitted and drawn together."""
    from voebench.evaluate.psychometrics import report as psych_report
    from voebench.evaluate.psychometrics.responses import load_run

    res = psych_report.write([load_run(run) for run in runs], out, n_boot=n_boot)
    sys.stdout.write(res["markdown"])
    figures = sum(1 for t in res["tests"] if t.get("figure"))
    print(
        f"psychometric report: {len(res['tests'])} graded test(s), {len(res['skipped'])} skipped, {figures} "
        f"figure(s) -> {os.path.join(out, psych_report.MARKDOWN)}",
        file=sys.stderr,
    )


def _check_run(run: str) -> None:
    """UsageError unless `run` is a run folder whose files read: its answers (samples.jsonl, or a world-model run's
    surprise.jsonl) one JSON object a line, and run.json one object where there is one."""
    from voebench.evaluate.run import RUN, SAMPLES
    from voebench.evaluate.surprise.score import CURVES

    if not os.path.isdir(run):
        raise UsageError(f"{run}: no such run directory")
    if os.path.isfile(os.path.join(run, SAMPLES)):  # written whole at the end of a run: read strictly
        records = checks.read_jsonl_objects(os.path.join(run, SAMPLES))
        if not records:
            raise UsageError(f"{os.path.join(run, SAMPLES)}: holds no records")
        if "form" in records[0] and "cut_frame" in records[0]:  # report would overwrite its report with an empty one
            raise UsageError(
                f"{run} is a predict run: `voebench predict` writes its report (run the same predict command again "
                "to rebuild it from the caches)"
            )
    elif os.path.isfile(os.path.join(run, CURVES)):  # appended per video: a killed run may end in a cut line
        if not checks.count_jsonl_records(os.path.join(run, CURVES), "id"):
            raise UsageError(f"{os.path.join(run, CURVES)}: holds no readable records")
    else:
        raise UsageError(f"{run} is not a voebench run: no {SAMPLES} (run voebench evaluate first)")
    if os.path.isfile(os.path.join(run, RUN)):
        checks.read_json_object(os.path.join(run, RUN))


#: export options -> (their default, the formats that read them); any other format refuses them when set
_EXPORT_OPTIONS = {
    "repeat": (None, {"grasp-csv"}),
    "name": ("voebench", {"lmms-eval"}),
    "suite": (None, {"lmms-eval", "hf-dataset"}),
    "tests": (None, {"lmms-eval", "hf-dataset"}),
    "limit": (None, {"lmms-eval", "hf-dataset"}),
    "copy_videos": (False, {"lmms-eval"}),
    "no_open": (False, {"lmms-eval"}),
    "complete_pairs_only": (False, {"lmms-eval", "hf-dataset"}),
}


def _refuse_foreign_options(args) -> None:
    """An option the chosen format does not read is refused in one line, not silently ignored (the asking
    settings belong to lmms-eval alone: they decide how the exported tasks ask)."""
    asking = argparse.ArgumentParser(add_help=False)
    ask.add_arguments(asking)
    options = {**_EXPORT_OPTIONS, **{k: (v, {"lmms-eval"}) for k, v in vars(asking.parse_args([])).items()}}
    foreign = [
        "--" + name.replace("_", "-")
        for name, (default, formats) in options.items()
        if args.format not in formats and getattr(args, name, default) != default
    ]
    if foreign:
        verb = "does" if len(foreign) == 1 else "do"
        raise UsageError(f"export {args.format}: {', '.join(foreign)} {verb} not apply to this format (see --help)")


def cmd_export(args) -> int:
    _refuse_foreign_options(args)
    if args.format == "grasp-csv":
        from voebench.evaluate.export.grasp_csv import export_grasp_csv

        if not os.path.isdir(args.source):
            raise UsageError(f"{args.source}: no such run directory")
        written = export_grasp_csv(args.source, args.out, args.repeat)
        for path, n in written.items():
            print(f"{n} rows -> {path}", file=sys.stderr)
        return 0
    if args.format == "hf-dataset":
        return _export_hf(args)
    from voebench.evaluate.export.lmms_eval import export_lmms_eval

    asking = ask.from_args(args)
    checks.check_out_folder(args.out, ("data.jsonl", "*.yaml", "videos"))  # an empty folder or an earlier export
    info = export_lmms_eval(
        args.source,
        args.out,
        name=args.name,
        suites=_split(args.suite),
        tests=_split(args.tests),
        limit=args.limit,
        copy_videos=args.copy_videos,
        include_open=not args.no_open,
        complete_pairs_only=args.complete_pairs_only,
        asking=asking,
    )
    frames = f"{asking.num_frames} frames" if asking.num_frames else f"{asking.fps} fps" if asking.fps else "all frames"
    print(
        f"{info['docs']} questions, tasks {', '.join(info['tasks'])}, groups {', '.join(info['groups'])} -> "
        f"{args.out}\nasked as `voebench evaluate` asks: {frames}, {asking.max_new_tokens} new tokens, sampling "
        f"{asking.sampling}, system prompt {asking.system_prompt}\n"
        f"run: lmms-eval eval --model <model> --tasks {info['groups'][0]} --include_path {args.out} "
        "--verbosity DEBUG --output_path <dir>",
        file=sys.stderr,
    )
    return 0


def _export_hf(args) -> int:
    """`export hf-dataset`: a folder `datasets.load_dataset` reads (evaluate/export/hf_dataset.py)."""
    from voebench.evaluate.export.hf_dataset import export_hf_dataset

    info = export_hf_dataset(
        args.source,
        args.out,
        suites=_split(args.suite),
        tests=_split(args.tests),
        limit=args.limit,
        complete_pairs_only=args.complete_pairs_only,
    )
    print(
        f"{info['rows']} rows of {info['videos']} videos, configs all, {', '.join(info['configs'])} -> {args.out}\n"
        f"load: datasets.load_dataset({args.out!r}) (or with a config name)",
        file=sys.stderr,
    )
    return 0
