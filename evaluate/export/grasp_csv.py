"""GRASP's `results.csv` from a run, so GRASP's own `tools/compute_accuracy.py` (and anything built on it) reads it.

Columns, as written by `grasp/tests/test.py`: ``scene, prompt, video_file, gt, response``; multi-turn prompts and
responses joined with ``<SEP>``; video files comma-joined per turn, empty for turns without a video. `scene` is
GRASP's name so the original script groups and parses as it did: Level 1 ``Shape``, ``Color``, ``Direction``,
``Movement``, ``RelationalPosition``, ``Two/Three/FourObjectOrdering``; Level 2 ``P_<Name>`` / ``IP_<Name>`` with
the Unity scene names by test number; other plausibility suites (AVoE) ``P_<test>`` / ``IP_<test>``.
All repeats go into one file (rows of repeat 0 first), unless one repeat is chosen.

Empty answers: a turn whose response is empty or only whitespace is written as `EMPTY_MARKER` (``<empty>``).
GRASP's script crashes on such a cell (pandas reads an empty cell as NaN, and a whitespace-only response has no
first token), while voebench counts it invalid. ``<empty>`` is not in pandas' NaN strings, its first token reads as
``empty`` once lower-cased and stripped of punctuation (neither yes nor no) and it contains no keyword of an open
question's classes, so GRASP's script counts it invalid too. Likewise a response cell that is exactly one of pandas'
default missing-value strings ("None", "NA", "null", "nan", ...), read as NaN and crashing the script too, is written
behind `NA_PREFIX` as one token (``<pandas-na>None``): invalid for both, as voebench scores the answer itself.
"""

from __future__ import annotations

import csv
import os

from voebench.errors import UsageError
from voebench.evaluate.report import load_records

COLUMNS = ["scene", "prompt", "video_file", "gt", "response"]
#: what an empty or whitespace-only response is written as (see the module docstring)
EMPTY_MARKER = "<empty>"


def written_response(text: str | None) -> str:
    """A turn's response as written in the CSV: unchanged, or `EMPTY_MARKER` where it has no non-space character."""
    return text if text is not None and text.strip() else EMPTY_MARKER


#: pandas.read_csv's default missing-value strings (pandas 2.x `STR_NA_VALUES`): such a cell is read as NaN
PANDAS_NA = frozenset(
    ["", "#N/A", "#N/A N/A", "#NA", "-1.#IND", "-1.#QNAN", "-NaN", "-nan", "1.#IND", "1.#QNAN", "<NA>", "N/A", "NA"]
    + ["NULL", "NaN", "None", "n/a", "nan", "null"]
)
NA_PREFIX = "<pandas-na>"


def response_cell(responses: list[str | None]) -> str:
    """The `response` cell: the turns joined with ``<SEP>``, empty turns as `EMPTY_MARKER`, and a cell that pandas
    would read as NaN kept as one token behind `NA_PREFIX`."""
    cell = "<SEP>".join(written_response(t) for t in responses)
    return NA_PREFIX + cell if cell in PANDAS_NA else cell


LEVEL2_NAMES = {
    1: "Unchangeableness",
    2: "Unchangeableness2",
    3: "SolidityContinuity",
    4: "SolidityContinuity2",
    5: "ObjectPermanence2",
    6: "ObjectPermanence",
    7: "ObjectPermanence3",
    8: "Inertia",
    9: "Gravity",
    10: "GravityInertia",
    11: "GravityInertia2",
    12: "Continuity",
    13: "GravityContinuity",
    14: "Collision",
    15: "GravitySupport",
    16: "Inertia2",
}

_NUMBERS = {2: "Two", 3: "Three", 4: "Four"}


def grasp_scene(rec: dict) -> str:
    test = rec["test"]
    t = "".join(ch for ch in test.lower() if ch.isalnum())
    if rec["kind"] == "plausibility":
        prefix = "P" if rec.get("polarity") == "positive" else "IP"
        num = rec.get("test_number")
        if num is None and rec["suite"] == "grasp-l2" and t[:1] == "t" and t[1:3].isdigit():
            num = int(t[1:3])
        name = LEVEL2_NAMES.get(int(num)) if num is not None and rec["suite"] == "grasp-l2" else None
        return f"{prefix}_{name or test.replace('_', '-')}"
    if "order" in t:
        obs = rec.get("observation") or ""
        n = len([x for x in obs.split(",") if x.strip()]) if obs else 0
        if not n:  # open/CoT first turn has no observation: count from the question
            q = rec.get("question", "")
            n = q.split(":", 1)[-1].count(",") + 1 if ":" in q else 0
        return f"{_NUMBERS.get(n, str(n))}ObjectOrdering"
    for key, name in (
        ("shape", "Shape"),
        ("colo", "Color"),
        ("direction", "Direction"),
        ("movement", "Movement"),
        ("relational", "RelationalPosition"),
        ("position", "RelationalPosition"),
    ):
        if key in t:
            return name
    return test


def rows(records: list[dict], repeat: int | None = None) -> list[list[str]]:
    out = []
    for r in sorted(records, key=lambda r: int(r["repeat"])):
        if repeat is not None and int(r["repeat"]) != repeat:
            continue
        if r.get("response") is None:  # unanswered (failed) calls are not exported
            continue
        out.append(
            [
                grasp_scene(r),
                "<SEP>".join(t["text"] for t in r["turns"]),
                ",".join(t["video"] or "" for t in r["turns"]),
                r["truth"],
                response_cell(r["responses"]),
            ]
        )
    return out


def _write(path: str, data: list[list[str]]) -> None:
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(COLUMNS)
        w.writerows(data)


def grasp_test_name(rec: dict) -> str:
    """The `test_name` of GRASP's test_config.yaml that makes compute_accuracy.py parse these rows right."""
    if rec["kind"] == "open":
        return "level1-open"
    if rec["kind"] == "plausibility":
        return "level2-text" if rec.get("strategy") == "text" else "level2"
    return f"level1-{rec.get('strategy', 'zero-shot')}"


def export_grasp_csv(run_dir: str, out: str, repeat: int | None = None) -> dict[str, int]:
    """`out` ending in .csv: one file with every row. Otherwise a folder with one sub-folder per GRASP test
    config (`level1-zero-shot/`, `level1-open/`, `level2/`, ...), each holding `results.csv` and the
    `test_config.yaml` that GRASP's compute_accuracy.py reads. Returns {path: rows}."""
    records, _ = load_records(run_dir)
    if repeat is not None and not any(int(r["repeat"]) == repeat for r in records):
        raise UsageError(f"--repeat {repeat}: no samples of that repeat in {run_dir}")
    if out.endswith(".csv"):
        data = rows(records, repeat)
        os.makedirs(os.path.dirname(os.path.abspath(out)), exist_ok=True)
        _write(out, data)
        return {out: len(data)}
    written = {}
    by_cfg: dict[str, list[dict]] = {}
    for r in records:
        by_cfg.setdefault(grasp_test_name(r), []).append(r)
    for name, recs in sorted(by_cfg.items()):
        d = os.path.join(out, name)
        os.makedirs(d, exist_ok=True)
        data = rows(recs, repeat)
        _write(os.path.join(d, "results.csv"), data)
        with open(os.path.join(d, "test_config.yaml"), "w", encoding="utf-8") as fh:
            fh.write(f"test_name: {name}\n")
        written[os.path.join(d, "results.csv")] = len(data)
    return written
