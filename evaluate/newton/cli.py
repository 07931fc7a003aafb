"""`voebench newton generate`: a NEWTON question set from an object-attribute repository (docs/newton.md).

Only the standard library and the pipeline's own modules are imported: no model, no Blender."""

from __future__ import annotations

import argparse
import os
import sys

from voebench.errors import UsageError
from voebench.evaluate.cli import positive_int


def _fraction(s: str) -> float:
    try:
        v = float(s)
    except ValueError:
        raise argparse.ArgumentTypeError(f"must be a number, got {s!r}") from None
    if not 0.0 <= v <= 1.0:
        raise argparse.ArgumentTypeError("must be in [0, 1]")
    return v


def _count(s: str) -> int | str:
    """--n: a positive number, or "max" (resolved once the repository is read)."""
    return "max" if s.strip().lower() == "max" else positive_int("--n")(s)


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "newton",
        help="NEWTON-style physical-attribute questions from an object-attribute repository",
        description="NEWTON (Wang et al.): fill the three tracks' templates from a repository of annotated "
        "object-attribute pairs; score the set with `voebench evaluate DIR`.",
    )
    sub = p.add_subparsers(dest="newton_command", metavar="COMMAND")
    g = sub.add_parser(
        "generate",
        help="write a question set (questions.jsonl + newton.json)",
        description="Read a repository in NEWTON's published format, keep the pairs the paper keeps "
        "(agreement >= 0.75, Likert answer 1 or 3) and write N questions of one track, balanced over polarity "
        "and answer positions, deterministic from --seed.",
    )
    g.add_argument("--repository", required=True, metavar="FILE", help="CSV with NEWTON's columns")
    g.add_argument("--track", required=True, type=int, choices=(1, 2, 3))
    g.add_argument(
        "--n",
        required=True,
        type=_count,
        metavar="N|max",
        help="number of questions, or 'max' for every question the repository gives (Tracks 1 and 2; Track 2 "
        "follows the released generator's pairings: 84,182 from NEWTON's confident_questions.csv). The summary "
        "line names the maximum, and an N above it is refused",
    )
    g.add_argument("--seed", type=int, default=0)
    g.add_argument("--out", required=True, metavar="DIR")
    g.add_argument(
        "--variants",
        default="v1",
        help="prompt variants to write, comma-separated from v1,v2,v3 (v1 = the paper's wording; with several, "
        "the report adds their majority-vote ensemble)",
    )
    g.add_argument(
        "--min-agreement", type=_fraction, default=0.75, help="filter threshold on annotator agreement (paper: 0.75)"
    )
    g.add_argument(
        "--adjective",
        action="append",
        default=[],
        metavar="ATTRIBUTE=PHRASE",
        help="Track 2's wording of an attribute the built-in table lacks, e.g. 'heat resistance=heat resistant'",
    )
    g.set_defaults(func=cmd_generate)
    p.set_defaults(func=lambda args: (p.print_help(), 2)[1])


def _variants(value: str) -> tuple[str, ...]:
    from voebench.evaluate.newton.templates import VARIANTS

    names = tuple(dict.fromkeys(v.strip() for v in value.split(",") if v.strip()))
    bad = [v for v in names if v not in VARIANTS]
    if not names or bad:
        raise UsageError(f"--variants {value!r}: choose from {', '.join(VARIANTS)}")
    return names


def _adjectives(values: list[str]) -> dict[str, str]:
    from voebench.evaluate.newton.repository import normalise_attribute

    out = {}
    for v in values:
        name, eq, phrase = v.partition("=")
        if not eq or not name.strip() or not phrase.strip():
            raise UsageError(f"--adjective {v!r}: expected ATTRIBUTE=PHRASE")
        out[normalise_attribute(name)] = " ".join(phrase.split())
    return out


def cmd_generate(args) -> int:
    from voebench.evaluate.newton import generate as gen
    from voebench.evaluate.newton import questionset
    from voebench.evaluate.newton.repository import EXTREMES, filter_pairs, read_repository

    variants = _variants(args.variants)
    adjectives = _adjectives(args.adjective)
    repo = read_repository(args.repository)
    data = filter_pairs(repo.pairs, args.min_agreement)
    most = gen.maximum(data, args.track)
    n: int
    if args.n != "max":
        n = args.n
    elif most is None:
        raise UsageError(f"--n max: Track {args.track} has no fixed maximum; give a number")
    else:
        n = most
    if most is not None and n > most:
        raise UsageError(f"--n {n}: Track {args.track} from this repository gives at most {most} questions (--n max)")
    plan = gen.generate(data, args.track, n, args.seed, variants, adjectives)
    info = {
        "repository": {
            "path": os.path.abspath(args.repository),
            "sha256": repo.sha256,
            "rows": len(repo.pairs) + repo.duplicates,
            "duplicates_ignored": repo.duplicates,
        },
        "filter": {
            "min_agreement": args.min_agreement,
            "extremes": list(EXTREMES),
            "kept": len(data.pairs),
            "dropped": data.dropped,
        },
        "track": args.track,
        "n": n,
        "maximum": most,
        "seed": args.seed,
        "variants": list(variants),
        "adjectives": adjectives,
        "skipped": plan.skipped,
    }
    questionset.write_set(args.out, plan.questions, info)
    print(
        f"{len(plan.questions)} Track {args.track} questions x {len(variants)} variant(s) from "
        f"{len(data.pairs)} of {len(repo.pairs)} pairs"
        + (f" (at most {most} from this repository: --n max)" if most is not None else "")
        + f" -> {args.out}",
        file=sys.stderr,
    )
    for what, why in plan.skipped.items():
        print(f"  left out {what}: {why}", file=sys.stderr)
    return 0
