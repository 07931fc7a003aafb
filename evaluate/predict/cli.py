"""`voebench predict`: ask a model to predict collisions from clips of a predict set cut before the first
collision, score the answers exactly and with a judge (docs/predict.md). `voebench predict-export`: the same
questions as an lmms-eval task with the exact scorer."""

from __future__ import annotations

import os
import sys

from voebench.errors import UsageError
from voebench.evaluate import checks
from voebench.evaluate.cli import check_replay_covers, positive_int
from voebench.evaluate.models import kind as model_kinds
from voebench.evaluate.predict import fake

#: what a predict run folder holds (run.json is written at the end; the caches with the first answers)
RUN_MARKS = ("run.json", "cache.jsonl", "judge_cache.jsonl", "samples.jsonl")
#: what an exported task folder holds
EXPORT_MARKS = ("data.jsonl", "*.yaml", "clips")


def _spec_help(fakes: list[str]) -> str:
    """The model kinds `--model`/`--judge` take (from the registry), with `fake:` naming predict's own fakes."""
    kinds = [cls.usage() for name, cls in model_kinds.MODELS.items() if name != "fake"]
    return " | ".join([*kinds, f"fake:<{'|'.join(fakes)}>"])


def _floats(s: str) -> list[float]:
    try:
        out = [float(x) for x in s.split(",") if x.strip()]
    except ValueError:
        raise UsageError(f"--temperatures {s!r}: expected numbers separated by commas, e.g. 0,0.5,1") from None
    if not out or any(t < 0 or t != t for t in out):
        raise UsageError(f"--temperatures {s!r}: expected non-negative numbers, e.g. 0,0.5,1")
    return list(dict.fromkeys(out))


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "predict",
        help="score collision predictions on a predict set (exact score and LLM judge)",
        description="Show each clip of a rendered predict set up to its cut (as N images and/or as a video), ask "
        "the model which objects will collide, score the answers against the simulated outcome and with a judge "
        "model. Re-running the same command resumes from RUN_DIR's caches.",
    )
    p.add_argument("dataset", metavar="DIR", help="rendered predict set (manifest.jsonl with `prediction` entries)")
    p.add_argument("--model", required=True, help=_spec_help(fake.MODELS.names()))
    p.add_argument("--judge", help=_spec_help(fake.JUDGES.names()) + "; none: exact scores only")
    p.add_argument("--out", required=True, metavar="RUN_DIR")
    p.add_argument("--forms", default="image,video", help="query forms, comma-separated: image, video")
    p.add_argument("--temperatures", help="model temperatures to compare, e.g. 0,0.5,1")
    p.add_argument("--judge-temperature", type=float, default=0.0)
    p.add_argument("--image-frames", type=positive_int("--image-frames"), default=5, help="N images (seed: 5)")
    p.add_argument("--video-frames", type=positive_int("--video-frames"), default=16, help="frames of the clip sent")
    p.add_argument("--repeats", type=positive_int("--repeats"), default=1)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--limit", type=positive_int("--limit"), help="at most N videos")
    p.add_argument("--max-new-tokens", type=positive_int("--max-new-tokens"), default=256)
    p.add_argument("--batch-size", type=positive_int("--batch-size"), default=1)
    p.add_argument("--system-prompt", help="a system prompt for the model (default none)")
    p.add_argument(
        "--prompt",
        choices=("seed", "structured", "both"),
        default="seed",
        help="collision prompt wording: the seed's (default), the seed's ending with one COLLISIONS line the exact "
        "scorer reads strictly, or both (reported side by side)",
    )
    p.set_defaults(func=cmd_predict)

    e = subparsers.add_parser(
        "predict-export",
        help="a predict set as an lmms-eval task (exact scorer as process_results)",
        description="Write an lmms-eval task folder for a rendered predict set: the video query with the clip cut "
        "where the set says, scored by the exact collision scorer.",
    )
    e.add_argument("dataset", metavar="DIR")
    e.add_argument("--out", required=True, metavar="TASK_DIR")
    e.add_argument("--name", default="voebench_predict")
    e.add_argument("--forms", default="image,video")
    e.add_argument("--image-frames", type=positive_int("--image-frames"), default=5)
    e.add_argument("--video-frames", type=positive_int("--video-frames"), default=16)
    e.set_defaults(func=cmd_export)


def make_model(spec: str, temperature: float | None, args):
    """The model of `--model spec`: `fake:<name>` one of predict's fakes (`fake.MODELS`), else a registered kind."""
    kind = model_kinds.parse_spec(spec)
    if kind.name == "fake":
        fake.MODELS.get(kind.rest, shown=repr(spec))
        return fake.FakePredictModel(kind.rest, temperature)
    return model_kinds.make_adapter(
        spec,
        batch_size=args.batch_size,
        max_new_tokens=args.max_new_tokens,
        temperature=temperature,
        do_sample=None if temperature is None else temperature > 0,
    )


def make_judge(spec: str, args):
    """The judge of `--judge spec`: `fake:<name>` one of the fake judges (`fake.JUDGES`), else a registered kind
    asked the seed's judge prompt (judge.py)."""
    kind = model_kinds.parse_spec(spec)
    if kind.name == "fake":
        fake.JUDGES.get(kind.rest, shown=repr(spec))
        return fake.FakeJudge(kind.rest)
    t = args.judge_temperature
    return model_kinds.make_adapter(spec, max_new_tokens=512, temperature=t, do_sample=t > 0)


def _samples(args):
    from voebench.evaluate.predict.events import build_event_samples
    from voebench.evaluate.predict.queries import build_samples
    from voebench.evaluate.tasks import load_manifest

    manifest = load_manifest(args.dataset)
    forms = [f.strip() for f in args.forms.split(",") if f.strip()]
    if args.__dict__.get("limit"):  # the first N predict videos and the first N pairs
        keep = [e for e in manifest.entries if e.get("prediction")][: args.limit]
        pairs = list(dict.fromkeys(e["pair_id"] for e in manifest.entries if e.get("pair_id")))[: args.limit]
        keep += [e for e in manifest.entries if e.get("pair_id") in pairs]
        manifest.entries = keep
    prompt = getattr(args, "prompt", None) or "seed"  # predict-export asks the seed prompt only
    prompts = ("seed", "structured") if prompt == "both" else (prompt,)
    samples = build_samples(manifest, forms, args.image_frames, args.video_frames, prompts=prompts)
    events, skipped = build_event_samples(manifest, forms, args.image_frames, args.video_frames)
    if not samples + events:
        why = f"; {len(skipped)} pair(s) left out, e.g. {next(iter(skipped.values()))}" if skipped else ""
        raise UsageError(
            f"{args.dataset}: no predict videos and no plausible/implausible pairs with an event to predict "
            f"(render a set with `voebench render predict`){why}"
        )
    if skipped:
        print(
            f"{len(skipped)} pair(s) without an event question (e.g. {next(iter(skipped.values()))})", file=sys.stderr
        )
    return samples + events


def cmd_predict(args) -> int:
    from voebench.evaluate.predict.run import REPORT, run_predict

    temps = _floats(args.temperatures) if args.temperatures is not None else [None]
    samples = _samples(args)
    checks.check_out_folder(args.out, RUN_MARKS, kind="predict")
    models = {t: make_model(args.model, t, args) for t in temps}
    judge = make_judge(args.judge, args) if args.judge else None
    ids = [s.sample_id for s in samples]
    check_replay_covers(next(iter(models.values())), ids, "--model")
    if judge is not None:  # the judge is asked about each answer: its replay ids carry temperature and repeat
        check_replay_covers(
            judge, [f"{i}@T={t}#r{r}" for t in temps for r in range(args.repeats) for i in ids], "--judge"
        )
    try:
        run_predict(
            samples,
            models,
            judge,
            args.out,
            repeats=args.repeats,
            seed=args.seed,
            system_prompt=args.system_prompt,
            extra={
                "dataset": os.path.abspath(args.dataset),
                "forms": args.forms,
                "prompt": args.prompt,
                "image_frames": args.image_frames,
                "video_frames": args.video_frames,
            },
        )
    finally:
        for m in [*models.values(), judge]:
            if m is not None:
                m.close()
    with open(os.path.join(args.out, REPORT), encoding="utf-8") as fh:
        print(fh.read())
    return _report_failed_calls(args.out)


def _report_failed_calls(out: str) -> int:
    """1 (and one line each) when model or judge calls failed: a server error, a replay file missing an answer.
    Their records say why (`error`, `judge_error` in samples.jsonl) and are left out of the scores; the caches keep
    every answer that came, so running the same command again asks only the failed calls."""
    from voebench.evaluate.predict.run import SAMPLES

    records = checks.read_jsonl_objects(os.path.join(out, SAMPLES))
    failed = {
        "model": sum(1 for r in records if r.get("error")),
        "judge": sum(1 for r in records if r.get("judge_error")),
    }
    for who, n in failed.items():
        if n:
            print(
                f"{n} of {len(records)} {who} calls failed (see '{'error' if who == 'model' else 'judge_error'}' in "
                f"{os.path.join(out, SAMPLES)}); run the same command again to retry only those",
                file=sys.stderr,
            )
    return 1 if any(failed.values()) else 0


def cmd_export(args) -> int:
    from voebench.evaluate.predict.lmms_eval import export

    samples = _samples(args)
    checks.check_out_folder(args.out, EXPORT_MARKS)
    n = export(samples, args.dataset, args.out, args.name)
    print(f"{args.out}: lmms-eval task {args.name} with {n} questions (lmms-eval --include_path {args.out})")
    return 0
