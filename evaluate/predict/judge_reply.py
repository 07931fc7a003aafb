"""Reading an LLM judge's reply: its Specificity (0-5), Logical Consistency (0-5) and Accuracy (0/1) scores, as a
careful reader reads them, or None for a criterion the reply gives no single valid score for.

Reading rules (tests/data/answers/judge.jsonl is the tuning corpus; docs/predict.md gives the agreement):

1. A criterion is named by "Specificity", "Logical Consistency" (also "Logical", "Logic", "Consistency",
   "logical_consistency", "Logical-Consistency"), "Accuracy"; case, bold/italic marks, backticks, headers, list
   bullets, table bars, JSON/XML/YAML keys and curly quotes do not matter. A horizontal table (criteria in the
   header row, scores in the row below) is read column by column.
2. Its score is the number in the name's *slot*: right after the name, past separators (":", "=", "-", "|",
   brackets, quotes) and filler words ("score", "is", "as", "of", "gets a", "I'd give it a", ...): "Specificity:
   4", "Specificity - score [5]", "Specificity score is 4", "the specificity as 4", "Specificity (4):",
   {"specificity": {"score": 4}}. Number words zero..five count there, and so does a score written first on the
   name's line ("4 - Specificity"). "4/5" and "4 out of 5" read 4; "8/10"
   (another scale) or "5/5" for Accuracy is off the scale.
3. A restated scale is not a score: "Specificity (0-5): 4", "[0, 5]: 4", "Accuracy (0/1): 1", "(0 or 1) = 1",
   "(scale 0 to 5)", "(0 = none, 5 = full)", "0 or 1; it gets 1" read 4, 4, 1, 1; a scale alone gives nothing.
   Two different numbers where one score belongs ("[4, 5]", "3-4", "3 or 4", "4 to 5") are a conflict: None.
   "[4, 4]" reads 4.
4. When the slot holds no number (reasoning first), the text up to the next criterion is searched for a marked
   score only: "Score: 4", "score of 4", "gets a 4", "I give 3", "(4/5)", "(4)", or a number ending the line
   after ":", ",", ";" or a dash ("names both objects, 4."). A bare number in reasoning ("mentions 1
   object", coordinates, times) is never a score.
5. A name mid-sentence with no number in its slot ("its logic is sound") is not a criterion heading and does not
   cut the previous criterion's text short; nor is a name in a hypothetical ("the maximum Specificity (5)", "if it
   had named the time, Specificity would be 5", "a Specificity of 5 would require ...").
6. A value off the scale (-1, 7, 80%, Accuracy 0.5 or 3) is invalid: None, never clipped. Half points on the 0-5
   scales are kept (3.5; "3,5" is the decimal comma). Integral values are ints.
7. Several mentions of a criterion: equal values read once. Different ones (or one invalid): the mentions after
   the reply's last final/summary/revision marker ("Final scores", "Summary", "Revised", "On reflection",
   "Actually", "In conclusion", "Overall", "On second thought"; from the start of the marker's line) decide if
   they agree; with no such marker, None. A conflict that the
   criterion's own text settles ("3 or 4 - I'll settle on 4", "go with 4") reads the settled value.
8. A reply that only echoes the prompt or the template ("Specificity: score: [].") gives None everywhere; so do
   refusals, bare number lists ("4, 3, 1") and replies that judge several samples with different scores.
"""

from __future__ import annotations

import re

#: criterion -> (name pattern, top of its scale)
CRITERIA: dict[str, tuple[str, int]] = {
    "specificity": (r"specif(?:ic)?i?ty|spec(?=\.?\s*[:=])|(?-i:S)(?=\s*[:=]\s*-?\d)", 5),
    "logical_consistency": (
        r"logic(?:al)?(?:[\s_-]*(?:consist[ae]ncy|cons\.?(?=\s*[:=])))?|consist[ae]ncy|(?-i:LC)(?=\s*[:=]\s*-?\d)",
        5,
    ),
    "accuracy": (r"accu(?:ra|ar)cy|acc(?=\.?\s*[:=])|(?-i:A)(?=\s*[:=]\s*-?\d)", 1),
}
_NAMES = re.compile("|".join(rf"(?P<{k}>(?<![a-z]){pat}(?![a-z]))" for k, (pat, _) in CRITERIA.items()), re.IGNORECASE)
_WORD_NUMBERS = {"zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5}
#: words that may stand between a criterion's name and its score
# fmt: off
_FILLER = {
    "score", "score_i", "scores", "rating", "rated", "grade", "is", "as", "of", "at", "gets", "get", "got", "receives",
    "receive", "earns", "deserves", "should", "would", "be", "i", "i'd", "i'll", "give", "gave", "it", "a", "an",
    "binary", "scale", "range", "value", "final", "overall", "me", "this", "for",
}
# fmt: on
_TOKEN = re.compile(
    r"(?P<num>(?<![\d.])-?\d+(?:[.,]\d+)?)|(?P<word>score_i|[a-z]+(?:'[a-z]+)?)|(?P<nl>\n)|(?P<punct>\S)", re.IGNORECASE
)
_SKIP = set(":=|\"'<>/{}[]().,;-–—>\\~≈→⇒")
_MARKED = re.compile(
    r"\bscore\b\s*(?:is|of|=|:)?\s*[:=]?\s*[\[(]?\s*(?P<a>-?\d+(?:\.\d+)?)(?!\s*(?:[-\u2013/]|to\b|or\b)\s*\d)"
    r"|\b(?:this|it)\s+is\s+an?\s+(?P<f>-?\d+(?:\.\d+)?)\b"
    r"|\b(?:gets?|give[sn]?|gave|earns?|deserves?|rated?|assign(?:ed)?|settle\s+on|go\s+with)\s+"
    r"(?:(?:it|this|a|an|as|score)\s+)*"
    r"(?P<b>-?\d+(?:\.\d+)?)"
    r"|(?P<c>(?<![\d.])\d+(?:\.\d+)?)\s*(?:/|out\s+of)\s*\d+"
    r"|\(\s*(?P<d>-?\d+(?:\.\d+)?)\s*\)"
    r"|(?::|[,;—–]|\s-)[ \t]*(?P<e>-?\d+(?:\.\d+)?)[ \t]*\.?[ \t]*$",
    re.IGNORECASE | re.MULTILINE,
)
_FINAL_MARK = re.compile(
    r"\b(?:final|summary|summar(?:ise|ize)|revised?|revising|corrected|updated|on\s+reflection|actually|"
    r"in\s+conclusion|overall|reconsider(?:ing)?|on\s+second\s+thought|to\s+sum\s+up)\b",
    re.IGNORECASE,
)
_SETTLE = re.compile(
    r"\b(?:settle\s+on|go\s+with|going\s+with|final(?:ly)?:?|i'll\s+say|i\s+will\s+say)\s+(?:a\s+|an\s+)?"
    r"(\d+(?:\.\d+)?)(?![\d/])",
    re.IGNORECASE,
)
_IDEAL_BEFORE = re.compile(r"\b(?:max(?:imum)?|min(?:imum)?|perfect|full|highest|lowest|top|ideal)\s+$", re.I)
_IF = re.compile(r"\b(?:if|had|unless|were)\b", re.IGNORECASE)
_IF_AFTER = re.compile(r"\s*(?:would|could|requires?|needs?|is\s+reserved|is\s+only)\b", re.IGNORECASE)
_SCORE_FIRST = re.compile(r"[\s*#>\-]*(-?\d+(?:\.\d+)?(?:\s*/\s*\d+)?)\s*[-–—:=|]\s*")
_HEADING_BEFORE = re.compile(r"[\s#>*\-+•|\"'{<\[(\d.)]*")
_HEADING_AFTER = re.compile(r"\s*[\"']?\s*(?:[:=|\-–—(→⇒]|score\b)", re.IGNORECASE)
#: a bracketed qualifier with words right after a name: "(0 = none, 5 = full)", "(scale 0 to 5)", "(binary)"
_QUALIFIER = re.compile(r"\s*[(\[][^()\[\]\n]*[a-z][^()\[\]\n]*[)\]]", re.IGNORECASE)

VALUE, CONFLICT, OFF = "value", "conflict", "off"


def _normalize(text: str) -> str:
    t = str(text or "")
    for a, b in (
        ("’", "'"),
        ("‘", "'"),
        ("“", '"'),
        ("”", '"'),
        ("«", '"'),
        ("»", '"'),
        ("：", ":"),
        ("\u00a0", " "),
        ("−", "-"),
    ):
        t = t.replace(a, b)
    t = re.sub(r"[*`]", "", t)
    return _horizontal_tables(t)


def _horizontal_tables(text: str) -> str:
    """A markdown table whose header row names criteria and whose next row holds numbers, rewritten as
    "Name: value" lines (rule 1)."""
    lines = text.split("\n")
    out: list[str] = []
    i = 0
    while i < len(lines):
        cells = _cells(lines[i])
        if cells and sum(bool(_NAMES.match(c)) for c in cells) >= 2:
            j = i + 1
            while j < len(lines) and _cells(lines[j]) and all(re.fullmatch(r":?-+:?", c) for c in _cells(lines[j])):
                j += 1
            row = _cells(lines[j]) if j < len(lines) else []
            if len(row) == len(cells):
                out += [f"{name}: {value}" for name, value in zip(cells, row) if _NAMES.match(name)]
                i = j + 1
                continue
        out.append(lines[i])
        i += 1
    return "\n".join(out)


def _cells(line: str) -> list[str]:
    s = line.strip()
    if not (s.startswith("|") and s.endswith("|")):
        return []
    return [c.strip() for c in s[1:-1].split("|")]


def _scale_pair(lo: float, hi: float, top: int) -> bool:
    return lo < hi and (lo, hi) in ((0, top), (1, top))


def _number(tok: str) -> float:
    return float(tok.replace(",", "."))


def _slot(text: str, start: int, top: int) -> tuple[str, float | None, int] | None:
    """The score in the slot after a criterion's name (rules 2 and 3): (VALUE|CONFLICT|OFF, value, end) or None."""
    qualifier = _QUALIFIER.match(text, start)
    if qualifier:
        start = qualifier.end()
    toks = list(_TOKEN.finditer(text, start, min(len(text), start + 160)))
    i, words, depth, colon = 0, 0, 0, False  # depth: open brackets, where "4, 5" is a list
    while i < len(toks):
        t = toks[i]
        kind, s = t.lastgroup, t.group()
        if kind == "nl" and not colon and i + 1 < len(toks) and toks[i + 1].lastgroup == "num":
            break  # "4 - Specificity\n3 - Logical": the next line's number is not this name's
        colon = colon or s in (":", "=")
        if kind in ("punct", "nl"):
            if s not in _SKIP and kind != "nl":
                break
            depth = depth + 1 if s in "([" else max(0, depth - 1) if s in ")]" else depth
            i += 1
            continue
        if kind == "word":
            low = s.lower()
            if low in _WORD_NUMBERS:
                return _check(float(_WORD_NUMBERS[low]), top, t.end())
            if low in _FILLER and words < 8:
                words += 1
                i += 1
                continue
            break
        # a number: alone, "x/y", "x out of y", or a pair "x-y", "x to y", "x or y", "[x, y]"
        v = t.group()
        line_start = text.rfind("\n", 0, t.start()) + 1
        if not text[line_start : t.start()].strip() and re.match(r"[.)]\s+[a-z]", text[t.end() :], re.IGNORECASE):
            break  # "1. Specificity:\n2. Logical Consistency:": the next list item's number, not a score
        if "," in v and (depth > 0 or _bracket_before(text, t.start())):  # "[4,5]": a list, not a decimal comma
            a, b = v.split(",")
            nxt = _joined(toks, i, top, True, a, b)
        else:
            nxt = _joined(toks, i, top, depth > 0)
        if nxt is None:
            if re.match(r"\s*(?:if|when|unless)\b", text[t.end() :], re.IGNORECASE):
                return (CONFLICT, None, t.end())  # "[1 if lenient, 0 if strict]": a condition, not a score
            if depth > 0 and any(x != _number(v) for x in _rest_of_list(toks, i, depth)):
                return (CONFLICT, None, t.end())  # "[[4], [3]]": a list of several scores, not one
            return _check(_number(v), top, t.end())
        joiner, lo, hi, end_i = nxt
        if joiner in ("/", "out of"):
            if _scale_pair(lo, hi, top) and (depth > 0 or _more_value(toks, end_i + 1)):
                i = end_i + 1  # "(0/1): 1": the scale
                continue
            if hi != top:
                return (OFF, None, toks[end_i].end())
            return _check(lo, top, toks[end_i].end())
        if _scale_pair(lo, hi, top):  # "(0-5): 4", "[0, 5]: 4": the scale; alone, no score
            i = end_i + 1
            continue
        if lo == hi:
            return _check(lo, top, toks[end_i].end())
        return (CONFLICT, None, toks[end_i].end())
    return None


def _rest_of_list(toks: list, i: int, depth: int) -> list[float]:
    """The other numbers of the bracketed list the number at toks[i] stands in, up to where its outermost bracket
    closes (or a word that is not filler: "(4, since 2 objects ...)" is a score and a reason)."""
    out = []
    for t in toks[i + 1 :]:
        s = t.group()
        if t.lastgroup == "num":
            out.append(_number(s))
        elif t.lastgroup == "word" and s.lower() not in _FILLER:
            break
        elif s in "([":
            depth += 1
        elif s in ")]":
            depth -= 1
            if depth <= 0:
                break
    return out


def _bracket_before(text: str, pos: int) -> bool:
    return bool(re.search(r"[\[(]\s*$", text[max(0, pos - 3) : pos]))


def _joined(
    toks: list, i: int, top: int, bracketed: bool, a: str | None = None, b: str | None = None
) -> tuple[str, float, float, int] | None:
    """The construct a number at toks[i] opens: ("/", x, y, last index), ("out of", ...), ("pair", ...) or None.
    Pairs: "x-y" / "x–y" written tight, "x to y", "x or y", and "x, y" inside brackets; "4 — 2 objects" is not."""
    if a is not None and b is not None:
        return ("pair", float(a), float(b), i)
    x = _number(toks[i].group())
    rest = toks[i + 1 : i + 5]
    words = [t.group().lower() for t in rest]
    if len(rest) >= 2 and words[0] == "/" and rest[1].lastgroup == "num":
        return ("/", x, _number(rest[1].group()), i + 2)
    if len(rest) >= 3 and words[:2] == ["out", "of"] and rest[2].lastgroup == "num":
        return ("out of", x, _number(rest[2].group()), i + 3)
    if len(rest) >= 2 and rest[1].lastgroup == "num" and not rest[1].group().startswith("-"):
        tight = rest[0].start() == toks[i].end() and rest[1].start() == rest[0].end()
        y = _number(rest[1].group())
        if (words[0] in ("-", "–") and tight) or words[0] in ("to", "or") or (words[0] == "," and bracketed):
            return ("pair", x, y, i + 2)
        if words[0] in ("-", "–") and _scale_pair(x, y, top) and _more_value(toks, i + 3):  # "0 - 5: 3"
            return ("pair", x, y, i + 2)
    if rest and rest[0].lastgroup == "num" and rest[0].group().startswith("-"):  # "3-4" tokenised as 3, -4
        return ("pair", x, -_number(rest[0].group()), i + 1)
    return None


def _more_value(toks: list, i: int) -> bool:
    """Whether a number follows within the slot (past separators and filler)."""
    for t in toks[i : i + 6]:
        if t.lastgroup == "num":
            return True
        if t.lastgroup == "word" and t.group().lower() not in _FILLER:
            return False
    return False


def _check(v: float, top: int, end: int) -> tuple[str, float | None, int]:
    if not 0 <= v <= top or (top == 1 and v not in (0, 1)):
        return (OFF, None, end)
    return (VALUE, int(v) if v == int(v) else v, end)


def _marked(segment: str, top: int) -> tuple[str, float | None, int] | None:
    """Rule 4: the marked scores in a criterion's text; one value, a conflict, or None."""
    got = []
    for m in _MARKED.finditer(segment):
        if m.group("c") is not None:
            if re.search(r"[(\[]\s*$", segment[: m.start("c")]):  # "(0/1)": a scale restated, not a score
                continue
            r = _slot(segment, m.start("c"), top)
        else:
            r = _check(float(next(g for g in m.group("a", "b", "d", "e", "f") if g is not None)), top, m.end())
        if r is not None:
            got.append(r)
    if not got:
        return None
    if len({(k, v) for k, v, _ in got}) == 1:
        return got[0]
    return (CONFLICT, None, got[-1][2])


def _hypothetical(text: str, start: int, line: str, got: tuple | None) -> bool:
    """A name in a hypothetical, not a score given (rule 5): "the maximum Specificity (5)", "If it had named the
    time, Specificity would be 5", "A Specificity of 5 would require the place"."""
    if _IDEAL_BEFORE.search(line):
        return True
    sentence = re.split(r"[.!?]\s", line)[-1]
    if _IF.search(sentence):
        return True
    return got is not None and got[0] == VALUE and bool(_IF_AFTER.match(text, got[2]))


def _mentions(text: str) -> list[tuple[int, str, tuple | None]]:
    """(position, criterion, slot result) for every name that heads a score (rule 5)."""
    out = []
    for m in _NAMES.finditer(text):
        name = m.lastgroup or ""
        got = _slot(text, m.end(), CRITERIA[name][1])
        line = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
        if _hypothetical(text, m.start(), line, got):
            continue
        heading = bool(_HEADING_BEFORE.fullmatch(line) or _HEADING_AFTER.match(text, m.end()))
        lead = _SCORE_FIRST.fullmatch(line)
        if got is None and lead:  # "4 - Specificity": the score written before the name
            got = _slot(line, lead.start(1), CRITERIA[name][1])
        if got is None and not heading:  # mid-sentence: a mention only with a marked score in its sentence
            sentence = text[m.end() :].split("\n", 1)[0]
            dot = re.search(r"[.!?](?:\s|$)", sentence)
            got = _marked(sentence[: dot.end()] if dot else sentence, CRITERIA[name][1])
            heading = got is not None
        if got is not None or heading:
            out.append((m.start(), name, got, m.end()))
    result = []
    for k, (pos, name, got, end) in enumerate(out):
        stop = out[k + 1][0] if k + 1 < len(out) else len(text)
        segment = text[end : min(stop, end + 600)]
        if got is None:
            got = _marked(segment, CRITERIA[name][1])
        elif got[0] == CONFLICT:  # "3 or 4 - I'll settle on 4"
            settled = _SETTLE.search(segment, got[2] - end)
            if settled:
                got = _check(float(settled.group(1)), CRITERIA[name][1], end + settled.end())
        result.append((pos, name, got))
    return result


def _decide(entries: list[tuple[int, tuple]], finals: list[int]) -> float | None:
    """Rule 7: one criterion's readings -> its score or None."""
    if not entries:
        return None
    for f in reversed(finals):
        after = [r for pos, r in entries if pos > f]
        if after and len(after) < len(entries):
            entries = [(0, r) for r in after]
            break
    kinds = {(r[0], r[1]) for _, r in entries}
    if len(kinds) == 1:
        kind, value = kinds.pop()
        return value if kind == VALUE else None
    return None


#: a line labelled "Scores:" holding exactly three numbers: Specificity, Logical Consistency, Accuracy in order
_TRIPLE = re.compile(
    r"^[\s#>\-]*(?:final\s+)?scores\s*[:=]\s*(-?\d+(?:\.\d+)?)\s*[,;/]\s*(-?\d+(?:\.\d+)?)\s*[,;/]\s*"
    r"(-?\d+(?:\.\d+)?)\s*\.?\s*$",
    re.IGNORECASE | re.MULTILINE,
)


def parse_scores(text: str | None) -> dict[str, float | None]:
    """{"specificity", "logical_consistency", "accuracy"} -> the score the reply gives (int, or a half point on the
    0-5 scales) or None (no single valid score; the module docstring states the rules)."""
    t = _normalize(text or "")
    found: dict[str, list[tuple[int, tuple]]] = {k: [] for k in CRITERIA}
    for pos, name, got in _mentions(t):
        if got is not None:
            found[name].append((pos, got))
    # a marker counts from the start of its line: "I gave Specificity a 3 on second thought" revises that line
    finals = [t.rfind("\n", 0, m.start()) for m in _FINAL_MARK.finditer(t)]
    scores = {k: _decide(v, finals) for k, v in found.items()}
    triple = _TRIPLE.findall(t)
    if not any(found.values()) and len(triple) == 1:  # "Scores: 1, 2, 0" -- the three, in the rubric's order
        for k, v in zip(CRITERIA, triple[0]):
            kind, value, _ = _check(_number(v), CRITERIA[k][1], 0)
            scores[k] = value if kind == VALUE else None
    return scores


def reply_valid(scores: dict | None) -> bool:
    """Whether a parsed reply gives all three scores (a reply with any None is invalid)."""
    if not scores:
        return False
    return all(scores.get(k) is not None for k in CRITERIA)
