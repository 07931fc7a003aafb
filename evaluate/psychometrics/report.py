"""The psychometric report of one or more runs: per graded test, every scorer's proportion noticed per level and
fitted curve in one table and one figure (`voebench report RUN [RUN ...] --psychometric DIR`).

DIR/psychometric.md     per test: the fits side by side (threshold, x75, slope, width with 95% intervals, guess,
                        lapse, goodness of fit, notes), then each scorer's per-level table (answers, trials,
                        noticed, % noticed with its 95% interval over trials, fitted %), and what was left out
DIR/psychometric.json   the same numbers (Fit.as_dict, LevelRow.as_dict per scorer and test)
DIR/<suite>__<test>.png every scorer on the same axes (plot.plot_test); without matplotlib, a note instead
                        (figures an earlier report left in DIR for tests not in this one are removed)

A scorer is a run (responses.load_run): a model or a human panel by its yes/no answers (guess rate: its own
false-alarm rate at level 0), a world model by relative accuracy (guess rate 1/2). Tests without levels are
listed in one line and skipped; runs without any graded video give a report that says so.
"""

from __future__ import annotations

import glob
import json
import os
import re
from collections.abc import Sequence

from voebench.evaluate.psychometrics.fitting import N_BOOT, N_GOF, Fit, fit
from voebench.evaluate.psychometrics.responses import RELATIVE, YES_NO, ScorerResponses
from voebench.evaluate.psychometrics.table import LevelRow, level_table
from voebench.evaluate.psychometrics.table import markdown as level_markdown

MARKDOWN = "psychometric.md"
RESULTS = "psychometric.json"
#: What the command writes in its folder (checks.check_out_folder's marks: a folder holding these is its own).
MARKS = (MARKDOWN, RESULTS, "*__*.png")
YLABEL = "proportion noticed"


def figure_name(suite: str, test: str) -> str:
    """A file name of a test's figure: `<suite>__<test>.png`, characters other than letters, digits, . - _ as _."""
    return re.sub(r"[^A-Za-z0-9._-]", "_", f"{suite}__{test}") + ".png"


def _unique_names(scorers: Sequence[ScorerResponses]) -> list[str]:
    """Scorer names, made distinct by their run folder where two runs share a model name."""
    names = [s.name for s in scorers]
    out = []
    for s in scorers:
        if names.count(s.name) > 1:
            out.append(f"{s.name} ({os.path.basename(os.path.normpath(s.source)) or s.source})")
        else:
            out.append(s.name)
    for i, n in enumerate(out):  # still equal (same folder name): number them
        if out.count(n) > 1:
            out[i] = f"{n} #{i + 1}"
    return out


def build(
    scorers: Sequence[ScorerResponses],
    *,
    sigmoid: str = "logistic",
    n_boot: int = N_BOOT,
    n_gof: int = N_GOF,
    seed: int = 0,
) -> dict:
    """Fit every scorer on every graded test it answered. Returns the JSON-ready report (see `markdown`)."""
    names = _unique_names(scorers)
    graded = sorted({k for s in scorers for k in s.tests})
    ungraded = sorted({k for s in scorers for k in s.ungraded} - set(graded))
    tests = []
    for key in graded:
        entries = []
        for name, s in zip(names, scorers):
            tr = s.tests.get(key)
            if tr is None:
                continue
            f = fit(tr.rows, sigmoid=sigmoid, guess=s.guess, n_boot=n_boot, n_gof=n_gof, seed=seed)
            rows = level_table(tr.rows, f, seed=seed)
            entries.append(
                {
                    "scorer": name,
                    "source": s.source,
                    "measure": s.measure,
                    "guess_rule": s.guess,
                    "unit": tr.unit,
                    "responses": len(tr.rows),
                    "left_out": dict(sorted(tr.left_out.items())),
                    "fit": f.as_dict(),
                    "levels": [r.as_dict() for r in rows],
                    "_fit": f,
                    "_rows": rows,
                }
            )
        units = [e["unit"] for e in entries if e["unit"]]
        tests.append({"suite": key[0], "test": key[1], "unit": units[0] if units else "", "scorers": entries})
    return {
        "scorers": [
            {
                "name": n,
                "source": s.source,
                "measure": s.measure,
                "guess_rule": s.guess,
                "notes": s.notes,
                "graded_tests": len(s.tests),
                "ungraded_tests": len(s.ungraded),
            }
            for n, s in zip(names, scorers)
        ],
        "tests": tests,
        "skipped": [{"suite": k[0], "test": k[1], "reason": "no violation_level"} for k in ungraded],
        "settings": {
            "sigmoid": sigmoid,
            "n_boot": n_boot,
            "n_gof": n_gof,
            "seed": seed,
            "bootstrap": "trials (pair_id): a trial keeps all its levels and repeats together",
        },
    }


def _p(x: float | None) -> str:
    return "–" if x is None else f"{x:.3g}"


def _fit_row(name: str, f: Fit) -> str:
    return (
        f"| {name} | {f.threshold.text()} | {f.x75.text()} | {f.slope.text()} | {_p(f.width)} | {_p(f.guess)} "
        f"| {_p(f.lapse)} | {_p(f.gof_p)} | {_p(f.rise_p)} | {f.n_trials} | {f.n_responses} |"
    )


def markdown(report: dict) -> str:
    """The report as Markdown: one section per graded test, figure first."""
    lines = ["# Psychometric report", ""]
    for s in report["scorers"]:
        what = (
            "yes/no answers"
            if s["measure"] == YES_NO
            else "relative accuracy"
            if s["measure"] == RELATIVE
            else s["measure"]
        )
        lines.append(
            f"- **{s['name']}** ({s['source']}): {what}; noticed = {s['measure'].split(': ', 1)[-1]}; "
            f"guess rate {'its level-0 proportion' if s['guess_rule'] == 'level0' else s['guess_rule']}; "
            f"{s['graded_tests']} graded test(s)"
        )
        lines += [f"  - {n}" for n in s["notes"]]
    st = report["settings"]
    lines += [
        "",
        f"Fit: {st['sigmoid']} psychometric function, maximum likelihood; 95% intervals from "
        f"{st['n_boot']} bootstrap draws over {st['bootstrap']}; goodness of fit from {st['n_gof']} "
        "parametric draws (docs/psychometrics.md, 'Reading a result').",
    ]
    if report["skipped"]:
        lines += [
            "",
            "Skipped (no violation_level: binary tests or a set without levels): "
            + ", ".join(f"{k['suite']}/{k['test']}" for k in report["skipped"]),
        ]
    if not report["tests"]:
        lines += [
            "",
            "**No graded videos: no test of these runs has a violation_level, so there is no curve to "
            "fit.** Render the tests with levels (a sweep) and score them again.",
        ]
        return "\n".join(lines) + "\n"
    for t in report["tests"]:
        unit = f" (level in {t['unit']})" if t["unit"] else ""
        lines += ["", f"## {t['suite']} / {t['test']}{unit}", ""]
        if t.get("figure"):
            lines += [f"![{t['test']}]({t['figure']})", ""]
        elif t.get("figure_note"):
            lines += [f"({t['figure_note']})", ""]
        lines += [
            "| scorer | threshold [95% CI] | x75 | slope | 10-90% width | guess | lapse | gof p | rise p | "
            "trials | answers |",
            "|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|",
        ]
        lines += [_fit_row(e["scorer"], e["_fit"]) for e in t["scorers"]]
        for e in t["scorers"]:
            lines += ["", f"**{e['scorer']}**" + (f": {'; '.join(e['_fit'].notes)}" if e["_fit"].notes else "")]
            if e["left_out"]:
                lines.append("left out: " + ", ".join(f"{why} ({n})" for why, n in e["left_out"].items()))
            if e["_rows"]:
                lines += ["", level_markdown(e["_rows"], t["unit"])]
                marked: dict[str, list[str]] = {}
                for r in e["_rows"]:
                    if r.note:
                        marked.setdefault(r.note, []).append(f"{r.level:g}")
                for note, at in marked.items():
                    lines += ["", f"\\* level{'s' if len(at) > 1 else ''} {', '.join(at)}: {note}"]
            else:
                lines.append("no responses to tabulate")
    return "\n".join(lines) + "\n"


def _plot(test: dict, out_dir: str) -> None:
    """The test's figure, or a note why there is none (matplotlib missing)."""
    from voebench.errors import UsageError
    from voebench.evaluate.psychometrics.plot import plot_test

    curves: dict[str, tuple[Fit, list[LevelRow]]] = {
        e["scorer"] + (" (violated video more surprising)" if e["measure"] == RELATIVE else " (answered 'no')"): (
            e["_fit"],
            e["_rows"],
        )
        for e in test["scorers"]
    }
    name = figure_name(test["suite"], test["test"])
    try:
        plot_test(
            curves,
            os.path.join(out_dir, name),
            title=f"{test['suite']} / {test['test']}",
            unit=test["unit"],
            ylabel=YLABEL,
        )
    except UsageError as e:  # matplotlib is in the `eval` extra: the tables stand without it
        test["figure_note"] = f"no figure: {e}"
        return
    test["figure"] = name


def write(scorers: Sequence[ScorerResponses], out_dir: str, **kw) -> dict:
    """Build the report, draw the figures and write psychometric.md / .json into `out_dir` (created)."""
    report = build(scorers, **kw)
    os.makedirs(out_dir, exist_ok=True)
    for t in report["tests"]:
        _plot(t, out_dir)
    drawn = {t.get("figure") for t in report["tests"]}
    for old in glob.glob(os.path.join(glob.escape(out_dir), MARKS[2])):  # an earlier report's figures of other tests
        if os.path.basename(old) not in drawn:
            os.remove(old)
    md = markdown(report)
    for t in report["tests"]:
        for e in t["scorers"]:
            del e["_fit"], e["_rows"]
    tmp = os.path.join(out_dir, RESULTS + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(report, fh, indent=1)
    os.replace(tmp, os.path.join(out_dir, RESULTS))
    with open(os.path.join(out_dir, MARKDOWN), "w", encoding="utf-8") as fh:
        fh.write(md)
    report["markdown"] = md
    return report
