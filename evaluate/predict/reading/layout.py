"""An answer's layout made plain before it is read: Unicode punctuation, markdown and arrows normalised, the
strict COLLISIONS line, the final part after "Final answer:", JSON objects and markdown tables as sentences."""

from __future__ import annotations

import json
import re

from .languages import to_english
from .parsed import Parsed
from .vocabulary import _ALLC, _colours, COLLIDE, NEG, SHAPES


_CHARS = {
    "\u2019": "'", "\u2018": "'", "\u02bc": "'", "\u2032": "'", "\u00b4": "'", "`": "'", "\uff07": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u00ab": '"', "\u00bb": '"', "\u2039": '"', "\u203a": '"',
    "\uff02": '"', "\u300c": '"', "\u300d": '"',
    "\uff0c": ", ", "\u3001": ", ", "\u3002": ". ", "\uff1b": "; ", "\uff1a": ": ", "\uff08": " (", "\uff09": ") ",
    "\uff01": "! ", "\uff1f": "? ", "\u00a0": " ", "\u2002": " ", "\u2003": " ", "\u2009": " ", "\u202f": " ",
    "\u2013": " - ", "\u2014": " - ", "\u2212": "-", "\u2026": "...", "\u00bf": "", "\u00a1": "",
}  # fmt: skip
ARROW = re.compile(r"\s*(?:-+>|=+>|\u2192|\u27f6|\u21d2|\u2794|\u279c|\u27a1|<-+>|\u2194|\u27f7)\s*")


def _arrow_chain(line: str) -> str:
    """ "A -> B -> C" is two hits, A-B and B-C: "A -> B; B -> C"; "A -> B, C -> none" is two items."""
    parts = re.split(r"[,;]\s*", line)
    if len(parts) > 1 and all(ARROW.search(x) for x in parts):
        return "; ".join(_arrow_chain(x) for x in parts)
    segs = ARROW.split(line)
    if len(segs) < 3:
        return line
    return "; ".join(f"{segs[i].strip()} -> {segs[i + 1].strip()}" for i in range(len(segs) - 1))


#: an arrow followed by no object describes its object ("A -> right", "A => passes behind B", "A -> unscathed",
#: "A -> no collision"); only an arrow to an object means "collides with"
ARROW_NOT_OBJECT = re.compile(ARROW.pattern + r"(?!\s*(?:the\s+)?(?:" + _ALLC + r")\b)([^;,.\n]*)", re.IGNORECASE)


def _arrow_verdict(m: re.Match) -> str:
    rest = m.group(1).strip()
    if re.fullmatch(r"(?:no(?:\s+collisions?)?|none|nothing|no\s+hit|miss(?:es)?|x|\u2717|\u2718|\u274c)", rest, re.I):
        return " will not collide with anything"
    if re.fullmatch(r"(?:unscathed|untouched|unhit|safe|intact|unaffected)", rest, re.I):
        return " will remain unscathed"
    return " " + rest


def normalize(text: str) -> str:
    """Lower case, ASCII apostrophes and quotes, half-width punctuation, no markdown emphasis or headings, arrows
    as "collides with", list bullets kept at line starts."""
    t = (text or "").replace("\r\n", "\n").replace("\r", "\n")
    t = "".join(_CHARS.get(c, c) for c in t)
    t = re.sub(r"<br\s*/?>", "\n", t, flags=re.IGNORECASE)
    t = re.sub(r"\*\*|__|~~|(?<![\w*])[*_](?=\w)|(?<=\w)[*_](?![\w*])", "", t)
    t = re.sub(r"(?m)^\s*#{1,6}\s*", "", t)
    t = re.sub(r"(?m)^\s*>\s*", "", t)
    t = re.sub(r"\b(?:number\s+of\s+)?collisions?(?:\s+expected)?\s*[:=]\s*(?:0|zero|none)\b", "no collisions", t,
               flags=re.IGNORECASE)  # fmt: skip
    t = re.sub(
        r"\b(?:nothing|no\s+objects?|none\s+of\s+(?:them|the\s+objects))\s+will\s+(?:collide|hit\s+anything)\s+"
        r"unless\b",
        "no other collisions, unless",
        t,
        flags=re.IGNORECASE,
    )  # "nothing collides unless A ..."
    t = "\n".join(_arrow_chain(line) for line in t.split("\n"))
    t = ARROW_NOT_OBJECT.sub(_arrow_verdict, t)
    t = ARROW.sub(" collides with ", t)
    t = re.sub(r"\s+(?:\+|&|vs\.?|versus|x|\u00d7|<>)\s+", " and ", t)
    t = re.sub(r"[ \t]+", " ", t)
    return to_english(t.lower()).strip()


STRUCTURED = re.compile(r"^[\s>*_'\"#-]*collisions?\s*:\s*(?P<body>.*?)[\s*_'\".]*$", re.IGNORECASE | re.MULTILINE)
STRICT_OBJECT = re.compile(rf"^(?:the\s+)?(?P<c>{_ALLC})\s+(?P<s>{'|'.join(SHAPES)})$")


def read_structured(text: str, labels: list[str]) -> Parsed | None:
    """The last ``COLLISIONS:`` line, read strictly; None when there is none. Each pair is exactly two
    "<colour> <shape>" names joined by "+" (or "and"); pairs are separated by ";" (or ","); anything else is
    malformed (unreadable)."""
    lines = list(STRUCTURED.finditer("".join(_CHARS.get(c, c) for c in (text or ""))))
    if not lines:
        return None
    body = lines[-1].group("body").strip(" *_'\"").lower()
    p = Parsed()
    if body in ("none", "no collisions", "nothing", "[]", "-"):
        p.status, p.unhit = "none", set(labels)
        return p
    for part in [x.strip() for x in re.split(r";|,(?=[^+]*\+)", body) if x.strip()]:
        names = [x.strip() for x in re.split(r"\s*(?:\+|\band\b)\s*", part)]
        objs = [STRICT_OBJECT.match(n) for n in names]
        if len(names) != 2 or not all(objs):
            p.reason = f"malformed structured line: {body!r}"
            return p
        a, b = (f"{m.group('c')} {SHAPES[m.group('s')]}" for m in objs if m)
        if a == b:
            p.reason = f"an object paired with itself: {body!r}"
            return p
        p.pairs.add(frozenset((a, b)))
    if not p.pairs:
        p.reason = "empty structured line"
        return p
    p.status, p.mentioned = "pairs", {x for q in p.pairs for x in q}
    return p


FINAL = re.compile(
    r"(?:^|\n|\.\s)[\s\-*]*(?:(?:(?:so|thus|therefore|hence)\s*,?\s*)?(?:(?:my|the|our)\s+)?final\s+(?:answer|prediction|predictions|verdict|result)|in\s+conclusion|"
    r"conclusion|in\s+summary|to\s+summari[sz]e|summary|overall|so\s+the\s+answer\s+is|answer)\s*[:\-]\s*|"
    r"(?:^|\n|[.!]\s)\s*(?:actually|correction|on\s+second\s+thought|wait|let\s+me\s+correct\s+(?:that|myself))\b"
    r"[\s,:;.!-]*(?:no\b[\s,:;.!-]*)?",
    re.IGNORECASE,
)
#: a final answer that is only two objects: "yellow sphere and red sphere"
FINAL_PAIR = re.compile(r"^((?:the\s+)?[a-z]+\s+[a-z]+)\s+(?:and|&|with|\+)\s+((?:the\s+)?[a-z]+\s+[a-z]+)\s*\.?$")


def final_part(t: str) -> str:
    """The part after the last "Final answer:" / "In conclusion," / "Summary:" marker, when it says something."""
    marks = list(FINAL.finditer(t))
    for m in reversed(marks):
        tail = t[m.end() :].strip()
        pair = FINAL_PAIR.match(tail)
        if pair:  # "Final answer: A and B." answers "which objects will collide?"
            return f"{pair.group(1)} will collide with {pair.group(2)}."
        if len(tail) > 3:
            return tail
    return t


def _json_sentences(obj, key: str = "") -> list[str]:
    """Sentences for a JSON answer: a pair list under a collision key collides, objects under an unscathed key
    are unscathed, a {object1, object2, collide: bool} record collides or not, other strings are read as text."""
    k = key.lower()
    collide_key = bool(re.search(r"collid|collision|pair|hit|impact|contact", k)) and not re.search(
        r"\bno|non|not|without|miss|unscath|safe|unhit", k
    )
    safe_key = bool(
        re.search(r"unscath|unhit|safe|no_?collision|not_?(?:hit|collid)|untouched|miss|free|unaffected", k)
    )
    out: list[str] = []
    if isinstance(obj, dict):
        vals = {str(a).lower(): v for a, v in obj.items()}
        flag = next((v for a, v in vals.items() if isinstance(v, bool) or str(v).lower() in ("yes", "no")), None)
        named = [(a, v) for a, v in vals.items() if re.search(r"object|target|^a$|^b$|body|pair", a)]
        names = [v for _, v in named if isinstance(v, str)] or next(
            (v for _, v in named if isinstance(v, list) and len(v) == 2 and all(isinstance(x, str) for x in v)), []
        )
        partner = next((v for a, v in vals.items() if re.search(r"collides?_?with|hits|partner|^with$", a)), "")
        if flag is False and not names and any(re.search(r"collid|collision", a) for a in vals):
            return ["no collisions."]
        if len(names) == 2 and (flag is not None or collide_key):  # {"a": A, "b": B} under "pairs"
            yes = flag is None or flag is True or str(flag).lower() == "yes"
            return [f"the {names[0]} {'will collide' if yes else 'will not collide'} with the {names[1]}."]
        if len(names) == 1 and any(re.search(r"collides?_?with|hits|partner|^with$", a) for a in vals):
            if isinstance(partner, str) and partner.strip().lower() not in ("", "none", "nothing", "-", "no"):
                return [f"the {names[0]} will collide with the {partner}."]
            return [f"the {names[0]} will not collide with anything."]
        for a, v in obj.items():  # a record under a collision key keeps that key ({"objects": [A, B]})
            verdict = str(v).strip().lower().rstrip(".")
            if _colours(str(a)) >= 2 and (isinstance(v, bool) or verdict in ("yes", "no", "true", "false")):
                pair = re.sub(r"\s*(?:-|/|&|\+|,|\bvs\.?|\bx\b)\s*", " and ", str(a))  # {"A-B": "no"}
                out.append(f"{pair} {'will' if verdict in ('yes', 'true') else 'will not'} collide.")
                continue
            if isinstance(v, str) and re.search(rf"\b(?:{_ALLC})\b", str(a)):
                out.append(f"the {a} {v.strip().rstrip('.')}.")  # {"red cube": "collides with the blue sphere"}
                continue
            out += _json_sentences(v, key if collide_key and isinstance(v, list) else str(a))
        return out
    if isinstance(obj, list):
        if not obj and collide_key:
            return ["no collisions."]
        if len(obj) == 2 and all(isinstance(x, str) for x in obj) and collide_key:
            return [f"the {obj[0]} will collide with the {obj[1]}."]
        for x in obj:
            out += _json_sentences(x, key)
        return out
    if isinstance(obj, str):
        s = obj.strip()
        if safe_key:
            return [f"{s} will remain unscathed."]
        if collide_key and not COLLIDE.search(s.lower()) and not NEG.search(s.lower()):
            return ["no collisions."] if s.lower() in ("none", "no", "") else [f"{s} will collide."]
        return [s if s.endswith((".", "!", "?")) else s + "."]
    return out


def json_text(t: str) -> str:
    """A JSON answer (a bare object/array or a ```json block) as sentences; other text unchanged."""
    m = re.search(r"```(?:json)?\s*(.*?)```", t, re.DOTALL) or re.search(r"(\{.*\}|\[.*\])", t, re.DOTALL)
    if not m:
        return t
    try:
        obj = json.loads(m.group(1))
    except ValueError:
        return t
    if not isinstance(obj, (dict, list)):
        return t
    return t[: m.start()] + "\n" + "\n".join(_json_sentences(obj)) + "\n" + t[m.end() :]


_TICK, _CROSS = r"[\u2713\u2714\u2705]\ufe0f?", r"[\u2717\u2718\u274c\u2716]\ufe0f?"
#: a table cell's verdict; a tick or cross may stand alone or before the word ("\u2717 No")
YES = re.compile(rf"^(?:{_TICK}\s*)?(?:yes|y|true|collide|collides|collision|will collide|likely|hit|{_TICK})$")
NO = re.compile(rf"^(?:{_CROSS}\s*)?(?:no|n|false|none|no collision|miss|misses|unlikely|-|unscathed|safe|{_CROSS})$")


def table_text(t: str) -> str:
    """Markdown table rows as sentences: a row with a yes/no cell says its objects collide (or not); any other row
    is its cells read as one clause ("| red cube | hits the blue sphere |")."""
    out: list[str] = []
    header: list[str] | None = None
    for line in t.split("\n"):
        s = line.strip()
        if not (s.startswith("|") or s.count("|") >= 2):
            out.append(line)
            header = None
            continue
        cells = [c.strip() for c in s.strip("|").split("|") if not re.fullmatch(r"\s*#?\d+\.?\s*", c)]
        if all(re.fullmatch(r":?-{2,}:?|", c) for c in cells):
            continue
        if header is None:
            header = cells
            if not _colours(" ".join(cells).lower()):
                continue  # "| Objects | Collide |" names columns, says nothing
        elif _partner_row(header, cells):  # | Object | Collides with |: | red cube | blue sphere |
            out.append(_partner_row(header, cells))
            continue
        flags = [c for c in cells if YES.match(c) or NO.match(c)]
        rest = [c for c in cells if c not in flags]
        if len(flags) == 1 and len(rest) == 1:
            out.append(rest[0] + (" will collide." if YES.match(flags[0]) else " will not collide."))
        elif len(flags) == 1 and rest:
            verb = " will collide with " if YES.match(flags[0]) else " will not collide with "
            out.append(verb.join(rest[:2]) + "." + (" " + " ".join(rest[2:]) + "." if rest[2:] else ""))
        else:
            out.append(" ".join(cells) + ".")
    return "\n".join(out)


def _partner_row(header: list[str], cells: list[str]) -> str:
    """A row under a header whose second column names the collision partner ("Collides with", "Collision
    partner", "Hits"): "<object> will collide with <partner>", or will not when the cell is empty / none / -."""
    if len(header) != len(cells) or len(cells) < 2 or not re.search(rf"\b(?:{_ALLC})\b", cells[0].lower()):
        return ""
    col = next((j for j, h in enumerate(header) if j and re.search(r"collid|collision|hit|partner", h.lower())), 0)
    if not col or YES.match(cells[col].lower()):
        return ""
    said = re.match(r"^(yes|no)\b[\s,:;.-]*(\S.*)$", cells[col].lower())
    if said:  # | Will be hit? | Yes, by the white cube |
        verb = header[col].lower().strip(" ?")
        return f"{cells[0]} {verb} {said.group(2)}." if said.group(1) == "yes" else f"{cells[0]} will not collide."
    if NO.match(cells[col].lower()) or cells[col].lower() in ("", "none", "nothing", "n/a"):
        return f"{cells[0]} will not collide with anything."
    return f"{cells[0]} will collide with {cells[col]}."
