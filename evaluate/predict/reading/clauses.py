"""Sentences, list items and clauses: where one claim ends and the next begins, with section headers
("Collisions:") lending their verb to the verbless items under them."""

from __future__ import annotations

import re
from dataclasses import dataclass

from .objects import find_mentions
from .vocabulary import _ALLC, _colours, COLLIDE, COLOR_MENTION, MISS, NEG, QUESTION_START, REACH, UNSCATHED, VERBISH


_NEW_SUBJECT = (  # a new subject and its verb: "(and) the green cylinder will ...", "it", "they", "not"
    r"(?:and\s+(?:then\s+)?)?(?:(?:the\s+)?(?:" + _ALLC + r")\b(?:\s+[a-z]+){0,2}?\s+(?:will|would|is|are|may|might|"
    r"could|won't|can|cannot|should|also|then|hits?|collides?|strikes?|remains?|stays?|continues?|moves?|keeps?|"
    r"misses|avoids|passes|gets?)\b|it\b|they\b|both\b|not\b)"
)
_NEW_VERB = (  # a second verb of the same subject: "... and (then) hits C"
    r"and\s+(?:then\s+)?(?:(?:will|would|could|may|might|then|also|eventually|finally|later)\s+)*(?:hit|hits|strike|"
    r"strikes|collide|collides|crash|crashes|slam|slams|bump|bumps|smash|smashes|miss|misses|avoid|avoids|bounce|"
    r"bounces|run|runs|roll|rolls|knock|knocks|graze|grazes|pass|passes|continue|continues|remain|remains|stay|stays|"
    r"get|gets|be)\b"
)
_SPLIT_ALWAYS = re.compile(
    "|".join(
        [
            r";|\s+-\s+",
            r"(?<!nothing)(?:,\s*|\s+)(?=(?:but|however|whereas|although|though|while|whilst|until|unless|because|"
            r"since|"
            r"after|and\s+then|"
            r"so\s+that|resulting\s+in|thereby|thus|hence|whereupon|leaving|alternatively|otherwise|"
            r"or\s+(?:possibly|perhaps|maybe|alternatively))\b)",
            r",\s*(?=(?:which|causing|sending|pushing|knocking|missing|avoiding|narrowly|without|then|so|or|before|"
            r"and|not|instead|as\s+(?:will|do|does|would))\b)",
            r"\s+(?=(?:as|when)\s+(?:the\s+)?(?:" + _ALLC + r")\b)",
            r"(?:(?<=unaffected)|(?<=unscathed)|(?<=untouched))\s+(?=by\b)",
            r"(?:\s+(?=and\s)|\"?\s*,\s*\"?)(?=" + _NEW_SUBJECT + ")",
            r"\s+(?=or\s+(?:the\s+)?(?:" + _ALLC + r")\b[^,.]*?\b(?:will|would|may|might|could|hits?|collides?)\b)",
            r"\s+(?=" + _NEW_VERB + ")",
        ]
    )
)
_HAS_VERB = re.compile(
    COLLIDE.pattern
    + "|"
    + MISS.pattern
    + "|"
    + UNSCATHED.pattern
    + "|"
    + VERBISH.pattern
    + r"|\b(?:fails?|failed|does|doesn't|do|don't|did|didn't)\b"
)


def split_clauses(sentence: str) -> list[str]:
    """Clauses of a sentence: a boundary is taken only when the text since the last one already has a verb, so
    "the red cube, the blue sphere, and the green cylinder will collide" stays one clause."""
    out, last = [], 0
    lead = re.match(r"(?:instead\s+of|rather\s+than)\b[^,]*,", sentence)
    if lead:  # "instead of hitting B, A will hit C": the aside first
        out.append(lead.group(0))
        last = lead.end()
    apart = re.match(r"(?:apart\s+from|except\s+for|besides|other\s+than)\s+([^,]*),\s*(nothing|none|no\b)", sentence)
    if apart:  # "apart from A hitting B, nothing collides": A-B, and no other collision
        return [apart.group(1), "no other " + sentence[apart.end(2) :].strip()]
    for m in _SPLIT_ALWAYS.finditer(sentence):
        left = sentence[last : m.start()]
        if m.group(0).strip().startswith("and") or sentence[m.end() : m.end() + 4] == "and ":
            if re.search(r"\bbetween\s+(?:the\s+)?[a-z]+(?:\s+[a-z]+)?\s*$", left):
                continue  # "between A and B" is one phrase
            first = COLOR_MENTION.search(left)
            strong = COLLIDE.search(left) or MISS.search(left) or UNSCATHED.search(left) or REACH.search(left)
            if first and not strong and not _HAS_VERB.search(left[first.end() :]):
                continue  # "it is likely that A and B will collide": A has no verb of its own yet
        if m.start() > last and _HAS_VERB.search(left):
            out.append(left)
            last = m.end()
    out.append(sentence[last:])
    return [c.strip(" ,.:-") for c in out if c.strip(" ,.:-")]


SENT_SPLIT = re.compile(r"(?:(?<=[.!?])|(?<=[.!?][\"')]))\s+(?=[a-z0-9(\"'])|\n+")
LIST_MARK = re.compile(r"^\s*(?:\(?\d+[.)]|\(?[a-h][.)]|[-*\u2022\u25cf\u25aa+]|step\s+\d+[.:]?)\s+")


@dataclass
class Item:
    """A sentence with what it inherits: the list item it belongs to and the section header above it."""

    text: str
    item: int
    section: str | None  # "collide" | "safe" | None
    question: bool = False


def sentences(t: str) -> list[Item]:
    """Lines, list items and sentences, with section headers ("Collisions:") carried to verbless items below."""
    out: list[Item] = []
    section: str | None = None
    asked: str | None = None  # "Which objects will collide?" lends its verb to the verbless answer line after it
    item = n_item = 0
    for line in LABEL_AFTER_SENTENCE.sub("\n", t).split("\n"):
        if not line.strip():
            continue
        lend, asked = asked, None
        is_item = bool(LIST_MARK.match(line))
        line = LIST_MARK.sub("", line).strip()
        item += is_item
        n_item = item if is_item else 0  # list items are alternatives; running text is one item
        head = re.match(r"^([^:]{1,60}):\s*(.*)$", line)
        if head and not find_mentions(head.group(1), []) and not re.search(rf"\b(?:{_ALLC})\b", head.group(1)):
            label, line = head.group(1), head.group(2)
            sec = _section(label)
            if not line:
                section = sec
                continue
            if sec and not _HAS_VERB.search(line):
                line = _lend(line, sec)
            elif sec:  # "No collision: the objects are too far apart" -- the label says something too
                out.append(Item(label, n_item, section))
        elif (not is_item and re.fullmatch(r"[^.!?]{0,60}:", line)) or HEADING.fullmatch(line.rstrip(":")):
            # "Collisions:", or a heading "Collisions" / "Unscathed objects" (also as a list item)
            section = _section(line)
            continue
        if lend and not _HAS_VERB.search(line) and _colours(line):
            line = _lend(re.sub(r"^a\s*:\s*", "", line), lend)
        line = VERDICT.sub(lambda m: f"{m.group(1)} {'will' if m.group(2) in YES_WORDS else 'will not'} collide", line)
        line = ANSWERED.sub(_answered, line)
        line, inner = _asides(line)
        for s in SENT_SPLIT.split(line) + inner:
            s = s.strip()
            if not s:
                continue
            if section and not _HAS_VERB.search(s) and len(find_mentions(s, [])) + len(re.findall(_ALLC, s)) >= 1:
                s = _lend(s, section)
            q = s.rstrip().endswith("?") or (bool(QUESTION_START.match(s)) and "?" in s)
            if q and re.search(r"\bwhich\b", s) and COLLIDE.search(s) and not _colours(s):
                asked = "collide"
            out.append(Item(s.rstrip("?!. "), n_item, section, q))
    return out


#: "... the red cylinder. Targets that continue unscathed: ..." -- a label mid-line starts a line of its own
LABEL_AFTER_SENTENCE = re.compile(rf"(?<=[a-z)][.!?])[ \t]+(?=(?:(?!\b(?:{_ALLC})\b)[a-z ]){{1,40}}:\s)")
HEADING = re.compile(
    r"(?:(?:likely|predicted|possible|expected|potential)\s+)?(?:collisions?|collision\s+pairs|"
    r"unscathed(?:\s+objects)?|safe\s+objects|objects\s+(?:that\s+)?(?:remain|stay|continue)\s+unscathed)"
)
#: "Red cube and blue sphere: yes." -- a pair and a verdict
YES_WORDS = ("yes", "likely", "collide", "collision", "will collide")
VERDICT = re.compile(
    rf"^(.*\b(?:{_ALLC})\b.*?)\s*:\s*(yes|no|likely|unlikely|collide|collision|will collide|no collision)[.!]?$"
)
#: "Will the red cube hit the blue sphere? Yes." -- a question answered in the next word is a statement
ANSWERED = re.compile(r"([^.?!]*)\?\s*(yes|no)\b[.!,]?")


def _answered(m: re.Match) -> str:
    q = re.sub(r"^\s*(?:will|would|could|does|do|is|are|can|might|may|should)\s+", "", m.group(1))
    return f"{q}. " if m.group(2) == "yes" else f"not {q}. "


def _lend(text: str, section: str) -> str:
    """A verbless item under a header takes the header's verb; a list of pairs ("A with B, and C with D") takes
    it pair by pair."""
    verb = "will collide" if section == "collide" else "will remain unscathed"
    parts = [x for x in re.split(r";|,\s*(?:and\s+)?", text.rstrip(" .!")) if x.strip()]
    if section == "collide" and len(parts) > 1 and all(len(re.findall(rf"\b(?:{_ALLC})\b", x)) >= 2 for x in parts):
        return ". ".join(f"{x.strip()} {verb}" for x in parts)
    return f"{text.rstrip(' .!')} {verb}"


def _asides(line: str) -> tuple[str, list[str]]:
    """A line without its parenthesised asides, and the asides (each read as a sentence of its own)."""
    inner = [m.group(1) for m in re.finditer(r"\(([^()]*)\)", line) if _HAS_VERB.search(m.group(1))]
    return re.sub(r"\(([^()]*)\)", lambda m: " " if _HAS_VERB.search(m.group(1)) else f" {m.group(1)} ", line), inner


def _section(label: str) -> str | None:
    low = label.lower()
    if UNSCATHED.search(low) or MISS.search(low) or NEG.search(low) or re.search(r"\bunhit|no.collision", low):
        return "safe"
    if COLLIDE.search(low) or re.search(r"\b(?:maybe|possibl\w*|potential\w*|likely|perhaps|probabl\w*)\b", low):
        return "collide"  # "Collisions:", "Maybe:", "Possible outcomes:"
    return None
