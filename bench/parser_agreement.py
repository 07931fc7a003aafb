"""How often voebench's answer parsers read a labelled answer as its careful human reader did.

Loads a labelled corpus (docs: tests/data/answers/heldout/README.md; schema in the notes the corpora follow) and runs
the project's public parser functions on every answer:

- predict: `voebench.evaluate.predict.exact.parse(text, labels)` -> an object with `.status` ("pairs" | "none" |
  "unreadable"), `.pairs` (pairs of labels) and `.unhit`. Without `.status` the status is "pairs" when it has pairs,
  else "none". Agreement = same status and, when the status is "pairs", the same set of pairs (order-free). Unhit
  agreement is counted separately. **Unsafe** answers: `exact.score(...)` gives strict credit while the reader's
  reading of the answer is not strictly right (its pairs differ from the truth, it is unreadable, or it calls a hit
  object unscathed), or the parser credits a true pair the reader does not see in the answer.
- judge: `voebench.evaluate.predict.judge.parse_scores(text)` -> {specificity, logical_consistency, accuracy} (a
  number or None each) or None. Agreement = all three equal (None == None). Unparsed = any value None.
  **False valid**: the parser gives three valid scores to a reply the reader finds a null in.
- choice, NEWTON questions: `voebench.evaluate.newton.answers.pick(text, labels, letters)` -> a label or "invalid"
  (read as None); two-way event questions: `voebench.evaluate.predict.exact.choice_letter(text)` -> "A", "B" or
  None. Agreement = same value.

A parser that raises on an answer counts as a disagreement with the error as its reading (never a traceback). This is
a measurement, not a test: it exits 0 after printing, whatever the numbers; 2 only for bad input (a corpus file
that is not valid JSON Lines of the schema), with one line on stderr.

    .venv/bin/python bench/parser_agreement.py                    # the held-out set (default)
    .venv/bin/python bench/parser_agreement.py --set tune         # tests/data/answers/*.jsonl
    .venv/bin/python bench/parser_agreement.py --json /tmp/agreement.json
"""

from __future__ import annotations

import argparse
import inspect
import json
import os
import sys
import time
from collections.abc import Callable
from typing import Any

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SETS = {
    "heldout": os.path.join(ROOT, "tests", "data", "answers", "heldout"),
    "tune": os.path.join(ROOT, "tests", "data", "answers"),
}
TASKS = ("predict", "judge", "choice", "binary")
CRITERIA = ("specificity", "logical_consistency", "accuracy")
STATUSES = ("pairs", "none", "unreadable")
EXCERPT = 110


class CorpusError(Exception):
    """A corpus file that does not follow the schema (bad input: one line, exit 2)."""


# ---------------------------------------------------------------- loading


def _need(row: dict, keys: tuple[str, ...], where: str) -> None:
    missing = [k for k in keys if k not in row]
    if missing:
        raise CorpusError(f"{where}: lacks {', '.join(missing)}")


def _check_predict(row: dict, where: str) -> None:
    _need(row, ("labels", "truth"), where)
    reader = row["reader"]
    if not isinstance(reader, dict) or reader.get("status") not in STATUSES:
        raise CorpusError(f"{where}: reader.status must be one of {', '.join(STATUSES)}")
    for p in list(reader.get("pairs", [])) + list(row["truth"]):
        if not (isinstance(p, list) and len(p) == 2 and all(isinstance(x, str) for x in p)):
            raise CorpusError(f"{where}: a pair is not two names: {p!r}")


def _check_judge(row: dict, where: str) -> None:
    reader = row["reader"]
    if not isinstance(reader, dict) or any(k not in reader for k in CRITERIA):
        raise CorpusError(f"{where}: reader must hold {', '.join(CRITERIA)}")


def _check_choice(row: dict, where: str) -> None:
    _need(row, ("task", "labels", "letters"), where)
    if row["task"] not in ("newton", "event"):
        raise CorpusError(f"{where}: task must be newton or event, not {row['task']!r}")
    if row["reader"] is not None and row["reader"] not in row["labels"]:
        raise CorpusError(f"{where}: reader {row['reader']!r} is not one of the labels")


def _check_binary(row: dict, where: str) -> None:
    _need(row, ("qtype",), where)
    if row["qtype"] not in ("plausibility", "binary"):
        raise CorpusError(f"{where}: qtype must be plausibility or binary, not {row['qtype']!r}")
    if row["reader"] not in ("yes", "no", None):
        raise CorpusError(f"{where}: reader must be yes, no or null, not {row['reader']!r}")


CHECKS = {"predict": _check_predict, "judge": _check_judge, "choice": _check_choice, "binary": _check_binary}


def load(path: str, task: str) -> list[dict]:
    """The rows of one corpus file, checked against the schema; [] when the file does not exist."""
    if not os.path.exists(path):
        return []
    rows: list[dict] = []
    ids: set[str] = set()
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip():
                continue
            where = f"{path}:{n}"
            try:
                row = json.loads(line)
            except json.JSONDecodeError as e:
                raise CorpusError(f"{where}: not JSON ({e.msg})") from None
            if not isinstance(row, dict):
                raise CorpusError(f"{where}: not a JSON object")
            _need(row, ("id", "kind", "text", "reader"), where)
            if not isinstance(row["text"], str):
                raise CorpusError(f"{where}: text is not a string")
            if row["id"] in ids:
                raise CorpusError(f"{where}: duplicate id {row['id']!r}")
            ids.add(row["id"])
            CHECKS[task](row, where)
            rows.append(row)
    return rows


# ---------------------------------------------------------------- helpers


def _norm(name: Any) -> str:
    return " ".join(str(name).lower().split())


def _pairset(pairs: Any) -> set[frozenset]:
    """Pairs as a set of frozensets of normalised names, whatever container the parser returns."""
    out: set[frozenset] = set()
    for p in pairs or ():
        out.add(frozenset(_norm(x) for x in p))
    return out


def _show_pairs(pairs: set[frozenset]) -> str:
    return "; ".join(sorted(" + ".join(sorted(p)) for p in pairs)) or "-"


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= EXCERPT else flat[: EXCERPT - 3] + "..."


def _pct(k: int, n: int) -> float | None:
    return round(100.0 * k / n, 1) if n else None


def _call(fn: Callable, *args: Any, **kwargs: Any) -> tuple[Any, str | None]:
    try:
        return fn(*args, **kwargs), None
    except Exception as e:  # noqa: BLE001 -- a parser crash is a measured outcome, not a traceback
        return None, f"{type(e).__name__}: {e}"


# ---------------------------------------------------------------- predict


def _parser_reading(parsed: Any) -> tuple[str, set[frozenset], set[str]]:
    pairs = _pairset(getattr(parsed, "pairs", None))
    status = getattr(parsed, "status", None) or ("pairs" if pairs else "none")
    unhit = {_norm(x) for x in (getattr(parsed, "unhit", None) or ())}
    return str(status), pairs, unhit


def _strict(exact: Any, row: dict, true_unhit: list[str]) -> tuple[bool | None, str | None]:
    """exact.score's strict flag for the answer against the row's truth (None when score cannot be called)."""
    score = getattr(exact, "score", None)
    if score is None:
        return None, "exact.score missing"
    kwargs: dict[str, Any] = {}
    try:
        if "true_unhit" in inspect.signature(score).parameters:
            kwargs["true_unhit"] = true_unhit
    except (TypeError, ValueError):
        pass
    result, err = _call(score, row["text"], row["labels"], [list(p) for p in row["truth"]], **kwargs)
    if err:
        return None, err
    sc = result[1] if isinstance(result, tuple) and len(result) == 2 else result
    strict = sc.get("strict") if isinstance(sc, dict) else getattr(sc, "strict", None)
    return (None if strict is None else bool(strict)), None


def measure_predict(rows: list[dict]) -> dict:
    from voebench.evaluate.predict import exact

    out: dict[str, Any] = {
        "n": len(rows),
        "agree": 0,
        "unhit_agree": 0,
        "parser_unparsed": 0,
        "reader_unparsed": 0,
        "unsafe": 0,
        "strict_unknown": 0,
        "crashes": 0,
        "disagreements": [],
        "unsafe_cases": [],
    }
    for row in rows:
        labels = row["labels"]
        truth = _pairset(row["truth"])
        hit = {x for p in truth for x in p}
        true_unhit = [x for x in labels if _norm(x) not in hit]
        r = row["reader"]
        r_status, r_pairs, r_unhit = r["status"], _pairset(r.get("pairs")), {_norm(x) for x in r.get("unhit", [])}
        parsed, err = _call(exact.parse, row["text"], labels)
        if err:
            out["crashes"] += 1
            p_pairs: set[frozenset] = set()
            p_unhit: set[str] = set()
            p_status = f"error ({err})"
        else:
            p_status, p_pairs, p_unhit = _parser_reading(parsed)
        out["reader_unparsed"] += r_status == "unreadable"
        out["parser_unparsed"] += p_status != "pairs" and p_status != "none"
        same = p_status == r_status and (r_status != "pairs" or p_pairs == r_pairs)
        out["agree"] += same
        out["unhit_agree"] += p_unhit == r_unhit
        if not same:
            _disagree(out, row, f"{r_status}: {_show_pairs(r_pairs)}", f"{p_status}: {_show_pairs(p_pairs)}")
        # unsafe: credit the reader would not give
        strict, serr = _strict(exact, row, true_unhit)
        if strict is None:
            out["strict_unknown"] += 1
        reader_strict = r_status != "unreadable" and r_pairs == truth and not (r_unhit & hit)
        credited = (p_pairs & truth) - r_pairs if p_status == "pairs" else set()
        reasons = []
        if strict and not reader_strict:
            reasons.append("strict credit, the reader's reading is not the truth")
        if credited:
            reasons.append(f"credits true pair(s) the reader does not see: {_show_pairs(credited)}")
        if reasons:
            out["unsafe"] += 1
            out["unsafe_cases"].append(
                {
                    "id": row["id"],
                    "kind": row["kind"],
                    "text": _excerpt(row["text"]),
                    "truth": _show_pairs(truth),
                    "reader": f"{r_status}: {_show_pairs(r_pairs)}",
                    "parser": f"{p_status}: {_show_pairs(p_pairs)}",
                    "why": "; ".join(reasons),
                }
            )
    return out


# ---------------------------------------------------------------- judge


def _num_equal(a: Any, b: Any) -> bool:
    if a is None or b is None:
        return a is None and b is None
    try:
        return float(a) == float(b)
    except (TypeError, ValueError):
        return False


def measure_judge(rows: list[dict]) -> dict:
    from voebench.evaluate.predict import judge

    out: dict[str, Any] = {
        "n": len(rows),
        "agree": 0,
        "parser_unparsed": 0,
        "reader_unparsed": 0,
        "false_valid": 0,
        "crashes": 0,
        "disagreements": [],
    }
    for row in rows:
        r = {k: row["reader"][k] for k in CRITERIA}
        got, err = _call(judge.parse_scores, row["text"])
        if err:
            out["crashes"] += 1
            p: dict[str, Any] = {k: None for k in CRITERIA}
            shown = f"error ({err})"
        else:
            p = {k: (got or {}).get(k) for k in CRITERIA}
            shown = json.dumps(p)
        r_valid = all(v is not None for v in r.values())
        p_valid = not err and all(v is not None for v in p.values())
        out["reader_unparsed"] += not r_valid
        out["parser_unparsed"] += not p_valid
        out["false_valid"] += p_valid and not r_valid
        same = not err and all(_num_equal(p[k], r[k]) for k in CRITERIA)
        out["agree"] += same
        if not same:
            _disagree(out, row, json.dumps(r), shown)
    return out


# ---------------------------------------------------------------- choice


def measure_choice(rows: list[dict], task: str) -> dict:
    from voebench.evaluate.newton import answers
    from voebench.evaluate.predict import exact

    invalid = getattr(answers, "INVALID", "invalid")
    out: dict[str, Any] = {
        "n": len(rows),
        "agree": 0,
        "parser_unparsed": 0,
        "reader_unparsed": 0,
        "wrong_pick": 0,
        "crashes": 0,
        "disagreements": [],
    }
    for row in rows:
        if task == "event":
            got, err = _call(exact.choice_letter, row["text"])
        else:
            got, err = _call(answers.pick, row["text"], row["labels"], bool(row["letters"]))
            if got == invalid:
                got = None
        _tally(out, row, got, err, "wrong_pick")
    return out


def _tally(out: dict, row: dict, got: Any, err: str | None, wrong: str) -> None:
    """Count one answer whose reading is a single value (an option, a verdict; None when unparsed) against the
    reader's: crashes, both unparsed rates, `wrong` (a value other than the reader's), agreement, disagreements."""
    reader = row["reader"]
    out["crashes"] += bool(err)
    out["reader_unparsed"] += reader is None
    out["parser_unparsed"] += bool(err) or got is None
    out[wrong] += not err and got is not None and got != reader
    same = not err and got == reader
    out["agree"] += same
    if not same:
        _disagree(out, row, repr(reader), f"error ({err})" if err else repr(got))


def _disagree(out: dict, row: dict, reader: str, parser: str) -> None:
    """Record one answer the parser reads otherwise than the reader: its id, kind, an excerpt and both readings."""
    out["disagreements"].append(
        {"id": row["id"], "kind": row["kind"], "text": _excerpt(row["text"]), "reader": reader, "parser": parser}
    )


# ---------------------------------------------------------------- yes/no


def measure_binary(rows: list[dict]) -> dict:
    """The careful yes/no reader (`verdict.read_verdict`) and, beside it, GRASP's first-word rule
    (`parsing.parse_binary`): agreement with the reader, and wrong reads (a verdict opposite to the reader's, or
    one where the reader finds none: what would be credit or blame a careful reader does not give)."""
    from voebench.evaluate import parsing, verdict

    out: dict[str, Any] = {
        "n": len(rows),
        "agree": 0,
        "parser_unparsed": 0,
        "reader_unparsed": 0,
        "wrong_read": 0,
        "first_word_agree": 0,
        "first_word_wrong_read": 0,
        "crashes": 0,
        "disagreements": [],
    }
    for row in rows:
        reader = row["reader"]
        got, err = _call(
            verdict.read_verdict, row["text"], plausibility=row["qtype"] == "plausibility", question=row["question"]
        )
        parsed = parsing.parse_binary(row["text"]).answer
        first = parsed if parsed in ("yes", "no") else None
        out["first_word_agree"] += first == reader
        out["first_word_wrong_read"] += first is not None and first != reader
        _tally(out, row, got, err, "wrong_read")
    return out


# ---------------------------------------------------------------- report


def _summary(name: str, res: dict) -> list[str]:
    n = res["n"]
    lines = [f"== {name}: n {n}"]
    if not n:
        return lines + ["   (no answers: nothing to measure)"]
    lines.append(f"   agreement {res['agree']}/{n} ({_pct(res['agree'], n)}%)")
    lines.append(
        f"   unparsed: parser {res['parser_unparsed']}/{n} ({_pct(res['parser_unparsed'], n)}%), "
        f"reader {res['reader_unparsed']}/{n} ({_pct(res['reader_unparsed'], n)}%)"
    )
    if "unhit_agree" in res:
        lines.append(f"   unhit agreement {res['unhit_agree']}/{n} ({_pct(res['unhit_agree'], n)}%)")
        lines.append(
            f"   unsafe (credit the reader would not give) {res['unsafe']}/{n}"
            + (f"; strict unknown for {res['strict_unknown']}" if res["strict_unknown"] else "")
        )
    if "false_valid" in res:
        lines.append(f"   counted valid although the reader finds a score missing or invalid: {res['false_valid']}")
    if "wrong_read" in res:
        lines.append(f"   verdicts other than the reader's (not unparsed): {res['wrong_read']}")
        lines.append(
            f"   GRASP's first-word rule beside it: agreement {res['first_word_agree']}/{n} "
            f"({_pct(res['first_word_agree'], n)}%), verdicts other than the reader's {res['first_word_wrong_read']}"
        )
    if "wrong_pick" in res:
        lines.append(f"   picks an option other than the reader's (not unparsed): {res['wrong_pick']}")
    if res["crashes"]:
        lines.append(f"   parser raised on {res['crashes']}")
    if res["disagreements"]:
        lines.append(f"   disagreements ({len(res['disagreements'])}):")
        for d in res["disagreements"]:
            lines.append(f"   - {d['id']} [{d['kind']}] {d['text']!r}")
            lines.append(f"       reader: {d['reader']}   parser: {d['parser']}")
    for u in res.get("unsafe_cases", []):
        lines.append(f"   ! unsafe {u['id']} [{u['kind']}] {u['text']!r}")
        lines.append(f"       truth: {u['truth']}   reader: {u['reader']}   parser: {u['parser']}   ({u['why']})")
    return lines


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument(
        "--set",
        choices=sorted(SETS),
        default="heldout",
        help="which corpus: the held-out one (default) or the parser authors' tuning one",
    )
    ap.add_argument(
        "--dir",
        help="read predict.jsonl, judge.jsonl, choice.jsonl, binary.jsonl from this folder instead (missing: none)",
    )
    ap.add_argument("--json", metavar="PATH", help="also write the results as JSON here")
    args = ap.parse_args(argv)
    folder = args.dir or SETS[args.set]
    if not os.path.isdir(folder):
        print(f"parser_agreement: no corpus folder {folder}", file=sys.stderr)
        return 2
    try:
        corpus = {t: load(os.path.join(folder, f"{t}.jsonl"), t) for t in TASKS}
    except (CorpusError, UnicodeDecodeError) as e:
        print(f"parser_agreement: {e}", file=sys.stderr)
        return 2
    started = time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime())
    shown = os.path.relpath(folder, ROOT) if os.path.abspath(folder).startswith(ROOT + os.sep) else folder
    results = {
        "predict": measure_predict(corpus["predict"]),
        "judge": measure_judge(corpus["judge"]),
        "choice-newton": measure_choice([r for r in corpus["choice"] if r["task"] == "newton"], "newton"),
        "choice-event": measure_choice([r for r in corpus["choice"] if r["task"] == "event"], "event"),
        "binary": measure_binary(corpus["binary"]),
    }
    print(f"parser agreement on {shown} ({started})")
    for name, res in results.items():
        print("\n".join(_summary(name, res)))
    if args.json:
        payload = {
            "corpus": shown,
            "time": started,
            "tasks": {k: {**v, "agree_pct": _pct(v["agree"], v["n"])} for k, v in results.items()},
        }
        parent = os.path.dirname(os.path.abspath(args.json))
        os.makedirs(parent, exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(payload, f, indent=1, ensure_ascii=False)
        print(f"wrote {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
