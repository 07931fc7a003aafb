"""`voebench humans serve|links|export` (registered by src/voebench/cli.py). Only the standard library at module level:
the web server's packages (the `humans` extra) are imported by `serve` alone."""

from __future__ import annotations

import argparse
import ipaddress
import os
import sys

from voebench.errors import UsageError
from voebench.evaluate import checks

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8000


def _int_at_least(lo: int, name: str):
    def conv(s: str) -> int:
        try:
            v = int(s)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{name} must be an integer, got {s!r}") from None
        if v < lo:
            raise argparse.ArgumentTypeError(f"{name} must be at least {lo}")
        return v

    return conv


def _split(values: list[str] | None) -> list[str] | None:
    out = [x for v in values or [] for x in v.split(",") if x]
    return out or None


def register(subparsers) -> None:
    h = subparsers.add_parser(
        "humans",
        help="human baselines: a web study of a rendered set (serve, links, export)",
        description="Run GRASP- or AVoE-style human trials on a rendered set and score the answers like a model "
        "run (docs/humans.md).",
    )
    h.set_defaults(func=lambda args: _usage(h))
    sub = h.add_subparsers(dest="humans_command", metavar="ACTION")

    s = sub.add_parser(
        "serve",
        help="make the study (first time) and serve it",
        description="Serve a study of SET. The first run makes STUDY (--protocol and --participants needed); "
        "later runs reopen it, and resume every participant where they were.",
    )
    s.add_argument("set", metavar="SET", help="rendered set (holds manifest.jsonl)")
    s.add_argument("--study", required=True, metavar="DIR", help="study folder (holds study.sqlite3)")
    s.add_argument("--protocol", choices=("grasp", "avoe"))
    s.add_argument("--participants", type=_int_at_least(1, "--participants"), help="number of participant links")
    s.add_argument("--host", default=DEFAULT_HOST, help=f"address to listen on (default {DEFAULT_HOST}: this machine)")
    s.add_argument("--port", type=_int_at_least(1, "--port"), default=DEFAULT_PORT)
    s.add_argument("--seed", type=int, help="study seed: video assignment and every participant's order (default 0)")
    s.add_argument("--votes", type=_int_at_least(1, "--votes"), help="grasp: answers per video (default 3)")
    s.add_argument("--per-participant", type=_int_at_least(1, "--per-participant"), help="videos per participant")
    s.add_argument("--familiarization", type=_int_at_least(0, "--familiarization"), help="practice trials (2)")
    s.add_argument("--attention-checks", type=_int_at_least(0, "--attention-checks"), help="per participant (2)")
    s.add_argument(
        "--catch-videos",
        type=_int_at_least(0, "--catch-videos"),
        help="per participant (0): a video seen before, with or without a red dot; asks whether one appeared",
    )
    s.add_argument("--repeat-fraction", type=float, help="share of trials shown twice (grasp 0, avoe 0.25)")
    s.add_argument("--response", choices=("yesno", "slider"), help="avoe: slider (default) or yesno")
    s.add_argument(
        "--twins",
        action="store_true",
        default=None,
        help="grasp: a participant may judge both videos of a pair (order counterbalanced; avoe always does)",
    )
    s.add_argument(
        "--design",
        choices=("auto", "standard", "constant-stimuli"),
        default="auto",
        help="constant-stimuli: for graded videos (a sweep): each participant judges every level of the trials "
        "(or --per-participant videos), levels balanced per participant and over participants, in a random "
        "order in blocks, never two videos of one trial back to back; the report fits psychometric curves per "
        "participant and pooled. standard: the protocol's own design (GRASP votes, AVoE everyone sees all). auto "
        "(default): constant-stimuli when the selection is a sweep (a trial with two or more violation levels), "
        "else standard",
    )
    s.add_argument(
        "--min-viewing",
        choices=("video", "off"),
        help="video (default): the server refuses an answer sent before the trial's video can have played through "
        "since it was first shown (docs/humans.md); off: no server check, for scripted clients (tests, load "
        "benches) only; the page unlocks answers at the video's end either way",
    )
    s.add_argument("--suite", action="append", help="only these suites (repeatable or comma-separated)")
    s.add_argument("--tests", action="append", help="only these tests")
    s.add_argument("--limit", type=_int_at_least(1, "--limit"), help="at most N videos per test (whole pairs)")
    s.add_argument("--create-only", action="store_true", help="make the study and print its links; do not serve")
    s.set_defaults(func=cmd_serve)

    ln = sub.add_parser(
        "links",
        help="one link per participant",
        description="Print one link per participant slot not given to a recruiting-platform participant.",
    )
    ln.add_argument("study", metavar="STUDY")
    ln.add_argument("--base-url", default=f"http://{DEFAULT_HOST}:{DEFAULT_PORT}", help="where the server is reached")
    ln.set_defaults(func=cmd_links)

    x = sub.add_parser(
        "export",
        help="answers as JSONL/CSV and a run directory for `voebench report`",
        description="Write STUDY's answers to OUT (answers.jsonl, answers.csv, samples.jsonl, run.json) and its "
        "report (results.json, report.md), as `voebench report OUT` would.",
    )
    x.add_argument("study", metavar="STUDY")
    x.add_argument("--out", required=True, metavar="RUN_DIR")
    x.add_argument(
        "--max-failed-checks",
        type=_int_at_least(0, "--max-failed-checks"),
        default=0,
        help="exclude participants who failed more attention checks than this (default 0)",
    )
    x.add_argument("--complete-pairs-only", action="store_true", help="score only pairs with answers on both videos")
    x.add_argument("--no-report", action="store_true", help="only write the answers")
    x.set_defaults(func=cmd_export)


def _usage(parser) -> int:
    parser.print_help()
    return 2


def cmd_serve(args) -> int:
    from voebench.evaluate.humans import study as study_mod

    if args.repeat_fraction is not None and not 0 <= args.repeat_fraction <= 1:
        raise UsageError("--repeat-fraction must lie in [0, 1]")
    if not args.create_only:
        try:
            import starlette  # noqa: F401
            import uvicorn  # noqa: F401
        except ImportError:
            raise UsageError("serving needs the web server: pip install 'voebench[humans]'") from None
    given = {
        "seed": args.seed,
        "votes": args.votes,
        "per_participant": args.per_participant,
        "familiarization": args.familiarization,
        "attention_checks": args.attention_checks,
        "catch_videos": args.catch_videos,
        "repeat_fraction": args.repeat_fraction,
        "response": args.response,
        "suites": _split(args.suite),
        "tests": _split(args.tests),
        "limit": args.limit,
        "twins": args.twins,
        "design": None if args.design == "auto" else args.design,
        "min_viewing": args.min_viewing,
    }
    from voebench.evaluate.humans.store import NAME, study_path

    # a new study, or this one reopened; texts/ may be written first, catch/ is the study's own (texts.py, catch.py)
    checks.check_out_folder(args.study, (NAME, NAME + "-*", "texts", "catch", "platform.json"), flag="--study")
    from voebench.evaluate.humans import platform

    platform.load(args.study)  # a bad STUDY/platform.json is refused before a study file is made
    if given["design"] is None and not os.path.exists(study_path(args.study)):  # auto, for a new study
        from voebench.evaluate.humans.design import choose_design
        from voebench.evaluate.tasks import load_manifest

        given["design"] = choose_design(load_manifest(args.set), given["suites"], given["tests"], args.limit)
    study = study_mod.open_or_create(args.set, args.study, args.protocol, args.participants, **given)
    n = len(study.tokens())
    if "check" not in study.meta["set"]:
        print(
            f"warning: study {args.study} was made before voebench recorded its videos' hashes: the set is checked "
            "by video ids and paths only",
            file=sys.stderr,
        )
    if study.meta["design"].get("min_viewing") == "off":
        print(
            f"warning: study {args.study} was made with --min-viewing off: the server accepts answers before the "
            "videos have played (for scripted clients; the page still waits for each video's end)",
            file=sys.stderr,
        )
    url = f"http://{args.host}:{args.port}"
    design = study.meta["design"].get("design") or "standard"
    print(
        f"study {args.study}: {study.meta['design']['protocol']} protocol, {design} design, {n} participants",
        file=sys.stderr,
    )
    print(f"links: voebench humans links {args.study} --base-url {url}", file=sys.stderr)
    if study.platform:  # the URL to give the recruiting platform (Prolific fills in its {{%NAME%}} placeholders)
        query = "&".join(f"{p}={{{{%{p}%}}}}" for p in study.platform["params"].values())
        print(f"platform study URL: {url}/start?{query}", file=sys.stderr)
    print(f"monitor (keep it secret): {url}/monitor/{study.monitor_token()}", file=sys.stderr)
    if args.create_only:
        study.close()
        return 0
    try:
        loopback = ipaddress.ip_address(args.host).is_loopback
    except ValueError:
        loopback = args.host == "localhost"
    if not loopback:
        print(
            f"warning: listening on {args.host}: put an HTTPS proxy in front, or the links and answers travel "
            "unencrypted",
            file=sys.stderr,
        )
    from voebench.evaluate.humans.server import serve

    print(f"serving on {url} (Ctrl-C stops; every acknowledged answer is on disk)", file=sys.stderr, flush=True)
    try:
        serve(study, args.set, args.host, args.port)
    finally:
        study.close()
    return 0


def cmd_links(args) -> int:
    from voebench.evaluate.humans.store import Study

    study = Study(args.study)
    base = args.base_url.rstrip("/")
    for _, token in study.lab_tokens():  # slots the recruiting platform has not given out
        print(f"{base}/p/{token}")
    study.close()
    return 0


def cmd_export(args) -> int:
    from voebench.evaluate.humans.export import export

    if not os.path.isdir(args.study):
        raise UsageError(f"{args.study}: no such study folder")
    checks.check_out_folder(args.out, ("run.json", "answers.jsonl", "samples.jsonl"), kind="humans export")
    info = export(args.study, args.out, max_failed_checks=args.max_failed_checks)
    print(
        f"{info['answers']} answers of {info['participants']} participants ({info['excluded']} excluded), "
        f"{info['samples']} scored -> {args.out}",
        file=sys.stderr,
    )
    if args.no_report or not info["samples"]:
        return 0
    from voebench.evaluate import report

    report.write_report(args.out, complete_pairs_only=args.complete_pairs_only)
    with open(os.path.join(args.out, "report.md"), encoding="utf-8") as fh:
        sys.stdout.write(fh.read())
    return 0
