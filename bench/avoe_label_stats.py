"""Class balance and label distributions of a rendered (or states-only) AVoE set, beside the paper's numbers.

    voebench render avoe --states-only --fraction 0.1 --out renders/avoe-states   # the 10% subset, no pixels
    python bench/avoe_label_stats.py renders/avoe-states

Prints: trials per sub-type and split beside supplementary Table 2; posterior-rule distributions per category
(expected and surprising videos) for comparison with supplementary Figure 8 (a bar chart; its numbers are not in
the text, so only ours are printed); prior rules and class features; how often the expected outcome matches the
sub-type; and how many surprising videos hide their violation.
"""

from __future__ import annotations

import argparse
import collections
import json
import os
import sys

# supplementary Table 2 (the 10% subset): split -> sub-type -> trials
PAPER_TABLE2 = {
    "train": {
        "A1": 180,
        "A2": 195,
        "B1": 159,
        "B2": 216,
        "C1": 168,
        "C2": 207,
        "D1": 170,
        "D2": 34,
        "D3": 171,
        "E1": 73,
        "E2": 63,
        "E3": 239,
    },
    "validation": {
        "A1": 35,
        "A2": 40,
        "B1": 35,
        "B2": 40,
        "C1": 48,
        "C2": 27,
        "D1": 37,
        "D2": 4,
        "D3": 34,
        "E1": 14,
        "E2": 12,
        "E3": 49,
    },
    "test": {
        "A1": 26,
        "A2": 24,
        "B1": 24,
        "B2": 26,
        "C1": 31,
        "C2": 19,
        "D1": 16,
        "D2": 9,
        "D3": 25,
        "E1": 8,
        "E2": 15,
        "E3": 27,
    },
}
# supplementary Table 1 (full set) totals per sub-type
PAPER_TABLE1 = {
    "A1": 2441,
    "A2": 2559,
    "B1": 2252,
    "B2": 2748,
    "C1": 2370,
    "C2": 2630,
    "D1": 2190,
    "D2": 564,
    "D3": 2246,
    "E1": 956,
    "E2": 960,
    "E3": 3084,
}
SUBTYPES = tuple(PAPER_TABLE1)
SPLITS = ("train", "validation", "test")
# Figure 8 shows these six posterior rules (one per category, two for D)
FIGURE8 = {
    "A": ["support_holds_object"],
    "B": ["object_seen_in_middle"],
    "C": ["object_fit"],
    "D": ["right_object_changed_direction", "left_object_changed_direction"],
    "E": ["object_passed_through_wall"],
}


def expected_outcome_matches(e) -> bool | None:
    """Whether an expected video's posterior rules show its sub-type's outcome (A, B, C; None for D, E)."""
    post, sub = e["labels"]["posterior_rules"], e["test"]
    if sub[0] == "A":
        return post["support_holds_object"] == (sub == "A1")
    if sub[0] == "B":
        return post["object_seen_in_middle"] == (sub == "B1")
    if sub[0] == "C":
        return (post["object_fit"] and not post["object_protruded"]) == (sub == "C1")
    return None


def pct(n, d):
    return f"{100.0 * n / d:5.1f}%" if d else "   - "


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "dirs",
        nargs="+",
        metavar="DIR",
        help="AVoE set(s) (manifest.jsonl), e.g. from `voebench render avoe --states-only`; several "
        "sets (e.g. one per category) are combined, later ones replacing the same videos of "
        "earlier ones",
    )
    ap.add_argument("--json", help="also write the numbers to this file")
    args = ap.parse_args(argv)
    by_id: dict = {}
    for d in args.dirs:  # a video in a later set replaces the same id in an earlier one
        with open(os.path.join(d, "manifest.jsonl")) as f:
            for line in f:
                e = json.loads(line)
                by_id[e["id"]] = e
    entries = [e for e in by_id.values() if e.get("suite") == "avoe"]
    if not entries:
        print(f"{', '.join(args.dirs)}: no AVoE videos", file=sys.stderr)
        return 1
    out: dict = {}

    # ---------------------------------------------------------------- Table 2
    trials = collections.Counter((e["split"], e["test"]) for e in entries if e["condition"] == "expected")
    total = sum(trials.values())
    print(f"== Trials per sub-type and split (ours: {total} trials; paper Table 2: 2500) — ours / paper")
    print("split        " + " ".join(f"{s:>9}" for s in SUBTYPES) + "      total")
    for split in SPLITS:
        row = [f"{trials[(split, s)]:>4}/{PAPER_TABLE2[split][s]:<4}" for s in SUBTYPES]
        ours = sum(trials[(split, s)] for s in SUBTYPES)
        print(f"{split:<12} " + " ".join(row) + f"  {ours:>4}/{sum(PAPER_TABLE2[split].values())}")
    row = [
        f"{sum(trials[(sp, s)] for sp in SPLITS):>4}/{sum(PAPER_TABLE2[sp][s] for sp in SPLITS):<4}" for s in SUBTYPES
    ]
    print(f"{'total':<12} " + " ".join(row))
    print("sub-type share within its category, ours vs paper Table 1 (full set):")
    for cat in "ABCDE":
        subs = [s for s in SUBTYPES if s[0] == cat]
        n = sum(trials[(sp, s)] for sp in SPLITS for s in subs)
        m = sum(PAPER_TABLE1[s] for s in subs)
        print(
            f"  {cat}: "
            + ", ".join(
                f"{s} {pct(sum(trials[(sp, s)] for sp in SPLITS), n)} (paper {pct(PAPER_TABLE1[s], m)})" for s in subs
            )
        )
    split_n = collections.Counter(e["split"] for e in entries if e["condition"] == "expected")
    print("split shares: " + ", ".join(f"{s} {pct(split_n[s], total)}" for s in SPLITS) + " (target 75/15/10)")
    out["trials"] = {f"{sp}/{s}": trials[(sp, s)] for sp in SPLITS for s in SUBTYPES}

    # ---------------------------------------------------------------- posterior rules (Figure 8)
    print("\n== Posterior rules: share of 'yes' (Figure 8's six rules marked *)")
    out["posterior"] = {}
    for cond in ("expected", "surprising"):
        es = [e for e in entries if e["condition"] == cond]
        if not es:
            continue
        print(f"-- {cond} videos ({len(es)})")
        for cat in "ABCDE":
            ce = [e for e in es if e["test"][0] == cat]
            if not ce:
                continue
            rules = [k for k, v in ce[0]["labels"]["posterior_rules"].items() if v != "irrelevant"]
            parts = []
            for r in rules:
                yes = sum(1 for e in ce if e["labels"]["posterior_rules"][r] is True)
                star = "*" if r in FIGURE8[cat] else " "
                parts.append(f"{star}{r} {pct(yes, len(ce))}")
                out["posterior"][f"{cond}/{cat}/{r}"] = yes / len(ce)
            print(f"  {cat} (n={len(ce):4}): " + "; ".join(parts))

    # ---------------------------------------------------------------- prior rules and class features
    print("\n== Prior rules (share 'yes', per trial) and class features")
    ex = [e for e in entries if e["condition"] == "expected"]
    for cat in "ABCDE":
        ce = [e for e in ex if e["test"][0] == cat]
        if not ce:
            continue
        pri = [k for k, v in ce[0]["labels"]["prior_rules"].items() if v != "irrelevant"]
        print(
            f"  {cat}: "
            + "; ".join(f"{r} {pct(sum(e['labels']['prior_rules'][r] is True for e in ce), len(ce))}" for r in pri)
        )
        feats = {k: v for k, v in ce[0]["labels"]["features"].items() if v not in ("irrelevant", -1.0)}
        for k, v in feats.items():
            vals = [e["labels"]["features"][k] for e in ce]
            if isinstance(v, (str, bool)):
                c = collections.Counter(str(x) for x in vals)
                print(f"     {k}: " + ", ".join(f"{a} {b}" for a, b in sorted(c.items())))
            else:
                print(f"     {k}: min {min(vals):.2f} mean {sum(vals) / len(vals):.2f} max {max(vals):.2f}")

    # ---------------------------------------------------------------- consistency, hidden violations
    print("\n== Expected outcome vs sub-type (A, B, C: the sub-type is the outcome the parameters lead to)")
    for cat in "ABC":
        ce = [e for e in ex if e["test"][0] == cat]
        ok = [expected_outcome_matches(e) for e in ce]
        bad = [e["id"] for e, m in zip(ce, ok) if not m]
        print(f"  {cat}: {sum(ok)}/{len(ok)} match" + (f"; mismatches: {', '.join(bad[:8])}" if bad else ""))
        out[f"match/{cat}"] = [sum(ok), len(ok)]
    print("\n== Surprising videos: violation kind and whether it happens out of sight")
    sv = [e for e in entries if e["condition"] == "surprising"]
    c = collections.Counter((e["test"], e["violation"]["kind"], e["violation"]["hidden"]) for e in sv)
    for (t, k, h), n in sorted(c.items()):
        print(f"  {t} {k:<16} hidden={str(h):<5} {n}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(out, f, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
