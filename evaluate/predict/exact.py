"""The exact scorer of collision predictions: read a free-text answer as a careful reader does -- which pairs it
says will (or may) collide, which objects it says stay unscathed -- or say it cannot, and score it against the
simulated ground truth.

Reading rules (docs/predict.md; the labelled corpus tests/data/answers/predict.jsonl follows the same rules):

1. **Outcome.** Every answer gets a status: ``pairs`` (at least one pair is put forward), ``none`` (the answer
   says nothing collides: "no two objects will collide", "all objects remain unscathed", or only denials such as
   "the red cube will miss the blue sphere") or ``unreadable`` (a refusal, only questions or reasoning, a
   self-contradiction, an object the reader cannot resolve, a malformed structured line). Unreadable answers are
   *unparsed*: they get no credit (every score column 0, strict False) and are counted in the report's
   ``unparsed_rate``.
2. **Structured line.** A line ``COLLISIONS: red cube + blue sphere; green cylinder + yellow cube`` or
   ``COLLISIONS: none`` is read strictly and wins over the free text. When the structured prompt was asked
   (``structured=True``) and the last such line is missing or malformed, the answer is unreadable.
3. **Final answer.** After reasoning, a "Final answer:" / "In conclusion" / "In summary" part wins, and so does a
   self-correction ("Actually, no: ..."). A question answered at once ("Will A hit B? Yes.") is a statement; a
   verdict line ("A and B: yes") is one too.
4. **Layout.** Unicode apostrophes, quotes and full-width punctuation are normalised; markdown emphasis is dropped;
   JSON objects and markdown tables are turned into sentences; arrows ("red cube -> blue sphere") mean "collides
   with"; a header line ("Collisions:", "Unscathed:") lends its meaning to the verbless list items under it.
5. **Clauses.** Sentences and list items are split into clauses at ";", "but", "while", "as", "after", ", which",
   ", leaving", ", missing", ", and <object> <verb>" ..., so a negation stays in its clause. Questions ("Could the
   green cylinder hit ...?") and hedged uncertainty ("it is hard to say whether ...") are not predictions.
6. **Objects.** "<colour> <shape>" (ball/box/block/can are synonyms, filler adjectives allowed); a colour alone
   ("the red one") names the object of that colour; a colour with the wrong shape or a colour not in the scene is a
   wrong object kept under its own name; "the two cubes", "both spheres", "the red and blue objects" name the
   group; a bare shape names the scene's only object of that shape (ambiguous otherwise: unreadable if used);
   "the others / the rest / the remaining objects" are the objects in no predicted pair.
7. **Pairs.** A clause with a collision verb (collide, hit, strike, slam into, bounce off, graze, make contact,
   knocked by, on a collision course, ...) pairs each object before the verb with each object after it
   ("A hits B and C"; passive "B is hit by A"); with none after it, the objects before it pair up ("A and B
   collide"); with none before it, the subject comes from the previous clause ("which then hits C" -> the last
   object; "it" -> the previous subject; "they" -> the previous objects), so chains give every link. A verbless
   clause starting "or / alternatively / and" continues the previous one ("may hit B; alternatively C").
   Hedges ("may", "might", "likely") keep the pair; "unlikely", "cannot", "fails to", "won't", "misses",
   "avoids", "passes behind", "nearly hits", "without hitting" deny it ("no doubt", "without slowing",
   "not only" are not negations). Reasoning without a collision verb ("their paths intersect", "is moving
   toward") is not a prediction.
8. **Unscathed.** Objects in a denying clause or called unscathed/untouched/safe are unhit, minus objects in a
   predicted pair. A pair (or object) both asserted and denied in the same item or in running text is a
   contradiction: unreadable. Alternatives in separate list items may differ (the seed asks for "multiple possible
   results"), but strict credit is never given to an answer that denies a true pair or calls a hit object
   unscathed anywhere.

`score_choice` reads the option letter of the two-way event questions (GRASP Level 2 / AVoE, events.py).

This module uses the standard library only: the lmms-eval export copies it into the task folder.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass, field

COLORS = ("red", "green", "blue", "yellow", "purple", "white")
#: colours no scene has: an object named with one is a wrong object, not a bare shape
OTHER_COLORS = (
    "orange", "black", "gray", "grey", "brown", "pink", "cyan", "gold", "golden", "silver", "magenta",
    "teal", "turquoise", "beige", "maroon", "navy", "lime",
)  # fmt: skip
SHAPES = {
    "sphere": "sphere", "ball": "sphere", "orb": "sphere",
    "cube": "cube", "box": "cube", "block": "cube",
    "cylinder": "cylinder", "can": "cylinder", "tube": "cylinder", "pillar": "cylinder",
}  # fmt: skip
PLURALS = {"spheres": "sphere", "balls": "sphere", "cubes": "cube", "boxes": "cube", "blocks": "cube",
           "cylinders": "cylinder", "cans": "cylinder"}  # fmt: skip
NOUNS = r"objects?|ones?|shapes?|items?|things?|bodies|body|solids?|targets?"
FILLER = (
    r"small|large|big|tiny|shiny|metallic|matte|rubber|rolling|moving|sliding|solid|dark|light|bright|pale|glossy|"
    r"wooden|plastic|metal|little|upright|rectangular|round|spherical|cylindrical|cubic|square|stationary|colored|"
    r"coloured|-colored|-coloured"
)
OTHERS = "<others>"
STATUSES = ("pairs", "none", "unreadable")

_ALLC = "|".join(COLORS + OTHER_COLORS)
_SHAPE_WORDS = "|".join(sorted(list(SHAPES) + list(PLURALS), key=len, reverse=True))
#: a colour, or a list of colours ("red, blue and green"), then optional filler words and a shape or noun
COLOR_MENTION = re.compile(
    rf"\b(?P<cols>(?:{_ALLC})(?:\s*(?:,|and|&|or|/|,\s*and)\s*(?:the\s+)?(?:{_ALLC})\b)*)"
    rf"(?:[\s-]+(?:(?:{FILLER})[\s-]+){{0,2}}(?P<noun>{_SHAPE_WORDS}|{NOUNS})\b)?"
)
SHAPE_GROUP = re.compile(
    rf"\b(?:(?P<num>two|three|four|both|all(?:\s+(?:two|three|four))?|the)\s+(?:the\s+)?)?(?P<plural>"
    rf"{'|'.join(PLURALS)})\b"
)
SHAPE_ONE = re.compile(rf"\b(?P<shape>{'|'.join(SHAPES)})\b")
OTHERS_RE = re.compile(
    r"\b(?:the\s+(?:other|remaining)(?:\s+(?:two|three|four|five))?(?:\s+(?:objects|ones|shapes|items|targets))?"
    r"|the\s+others|the\s+rest(?:\s+of\s+the\s+objects)?|all\s+(?:the\s+)?other\s+(?:objects|ones|shapes)"
    r"|everything\s+else|all\s+others|remaining\s+objects)\b"
)
NUMBER = {"two": 2, "both": 2, "three": 3, "four": 4}

COLLIDE = re.compile(
    r"\b(?:coll?id\w*|coll?isi?on\w*|hit|hits|hitting|strik\w*|struck|crash\w*|bump\w*|smash\w*|slam\w*|knock\w*|"
    r"impact\w*|ram|rams|ramm\w*|(?:run|runs|running|ran|roll\w*|slid\w*|mov\w*|plow\w*|bang\w*|careen\w*|"
    r"veer\w*|push\w*|drive\w*|go\w*|head\w*|deflect\w*|bounc\w*|ricochet\w*|rebound\w*|glanc\w*|carom\w*|"
    r"tumbl\w*|skid\w*|swerv\w*|drift\w*|plough\w*|barrel\w*|smash\w*|crash\w*)\s+(?:straight\s+|right\s+|directly\s+)?"
    r"into|"
    r"(?:make|makes|making|made|come|comes|coming|came|be|in)\s+(?:\w+\s+)?contact|contacts?|contacting|"
    r"touch\w*|graz\w*|clip|clips|clipping|clipped|nudg\w*|tap|taps|tapping|tapped|"
    r"(?:bounc\w*|ricochet\w*|rebound\w*|deflect\w*|glanc\w*|carom\w*)\s+off|push\w*|shov\w*|"
    r"collision[- ]course|bump\w*|interact\w*|brush\w*\s+(?:up\s+)?against|"
    r"meet\w*\s+head[- ]on|(?:deflected|displaced)\s+by|"
    r"(?:send|sends|sending|sent|propel\w*|fling\w*|throw\w*|launch\w*)\s+(?:it|them)\s+(?:\w+\s+)?into)\b"
)
#: "reach" / "meet" count only when denied ("cannot reach", "they never meet"): reaching is not hitting
REACH = re.compile(r"\b(?:reach\w*|meet|meets|meeting|met)\b")
MISS = re.compile(
    r"\b(?:miss|misses|missed|missing|avoid\w*|dodg\w*|evad\w*|escap\w*|"
    r"(?:stay|stays|staying|keep|keeps|keeping|veer|veers|steer|steers)\s+"
    r"(?:well\s+)?away\s+from|(?:stay|stays|staying|keep|keeps|keeping|remain|remains|remaining)\s+(?:well\s+)?apart|"
    r"pass\w*\s+(?:by|behind|in\s+front\s+of|between|beside|alongside|safely|clear|harmlessly|near|close\s+to|"
    r"over|under|around|well\s+clear)|steer\w*\s+clear|stay\w*\s+clear|clear\s+of|out\s+of\s+(?:the\s+)?way|"
    r"(?:go|goes|going|went|slid\w*|slide\w*|roll\w*|mov\w*|travel\w*|glid\w*|slip\w*|zoom\w*|sail\w*)\s+"
    r"(?:right\s+|just\s+|safely\s+)?past|goes\s+around|veer\w*\s+away|pass(?:es|ed|ing)?(?=\s+(?:right\s+)?(?:the\s+)?(?:red|green|blue|yellow|purple|white)\b))\b"
)
UNSCATHED = re.compile(
    r"\b(?:unscathed|untouched|unharmed|unaffected|unhit|intact|undisturbed|uninvolved|unimpeded|unobstructed|"
    r"safe|safely|not\s+(?:be\s+)?involved|uninterrupted)\b"
)
NEG = re.compile(
    r"\b(?:not|never|no\s+longer|cannot|can't|won't|wont|doesn't|don't|didn't|isn't|aren't|wasn't|weren't|"
    r"shouldn't|wouldn't|couldn't|hasn't|haven't|unlikely|improbable|fail|fails|failing|failed|nor|neither|"
    r"nearly|almost|without|instead\s+of|short\s+of|nothing|no\s+(?:other\s+)?(?:object|objects|one)|unable|"
    r"no\s+way)\b|\bno\s+(?:\w+\s+)?(?:collision|contact|impact|hit|crash)|"
    r"\b(?:stop\w*|halt\w*|(?:come|comes|coming|came)\s+to\s+(?:a\s+)?(?:stop|rest|halt))\s+(?:\w+\s+){0,2}?"
    r"(?:before|short)\b"
)
#: phrases that look negative but are not ("no doubt", "without slowing", "not only")
NEUTRAL = re.compile(
    r"\b(?:there\s+is\s+)?no\s+doubt\b|\bwithout\s+(?:a|any)\s+doubt\b|\bwithout\s+(?:slowing|stopping|"
    r"changing|losing|breaking|hesitat\w*|decelerat\w*|much\s+\w+|any\s+(?:change|loss|delay))(?:\s+down)?"
    r"(?:\s+(?:its|their|much))?(?:\s+(?:speed|direction|course|momentum|path|pace|velocity))?\b|"
    r"\bnot\s+only\b|\b(?:i'm|i\s+am|we\s+are)\s+not\s+(?:entirely\s+|completely\s+|100%\s+)?(?:sure|certain)"
    r"(?:,\s*but|\s+but)?\b|\bno\s+matter\b|\bnothing\s+(?:will\s+)?stop\w*\b|\bundoubtedly\b|"
    r"\b(?:almost|nearly)\s+(?:certain\w*|sure\w*|definitely|inevitabl\w*|immediately|instantly)\b|"
    r"\bmay\s+or\s+may\s+not\b|\bnothing\s+(?:but|except|other\s+than)\b|"
    r"\b(?:won't|will\s+not|cannot|can't|doesn't|does\s+not|wouldn't)\s+fail\s+to\b|"
    r"\b(?:wouldn't|would\s+not|not|isn't|it's\s+not)\s+(?:be\s+)?surpris\w*|"
    r"\bnot\s+(?:be\s+)?(?:impossible|unlikely|out\s+of\s+the\s+question)\b|\bmight\s+or\s+might\s+not\b|"
    r"\bnot\s+far\b|\bnot\s+long\b"
)
#: a negated object, not a negated verb: "not the purple sphere but the red sphere will hit C", "A (not B) will hit
#: C", "A will hit B instead of C": the object corrected away plays no part; the verb keeps its polarity
_MENTION = re.sub(r"\(\?P<\w+>", "(?:", COLOR_MENTION.pattern)
CORRECTED = re.compile(
    r"(?:\bnot\s+(?:the\s+)?" + _MENTION + r"\s*,?\s*(?=but\b|\s*$|\s*\)|\s+(?:will|would|may|might|could)\b)"
    r"|\b(?:instead\s+of|rather\s+than)\s+(?:the\s+)?" + _MENTION + r"\s*$)"
)
#: "will not be affected / involved": unscathed when denied
AFFECTED = re.compile(r"\b(?:affected|involved|disturbed|harmed|impacted|hurt|damaged|bothered)\b")
EXCEPT = re.compile(r"\b(?:except(?:\s+for)?|but\s+not|other\s+than|apart\s+from|besides|save\s+for)\b")
#: a description of what already happened ("has already hit"), not a prediction
PAST = re.compile(r"\b(?:already|earlier|previously|so\s+far|was|were|had)\b")
FUTURE = re.compile(r"\b(?:will|won't|going\s+to|may|might|could|would|shall|soon|next|about\s+to)\b")
UNCERTAIN = re.compile(
    r"\b(?:whether|hard\s+to\s+(?:say|tell|predict|determine)|difficult\s+to\s+(?:say|tell|predict|determine)|"
    r"(?:cannot|can't|unable\s+to|not\s+able\s+to|impossible\s+to)\s+(?:\w+\s+)?(?:determine|tell|predict|say|"
    r"know|confirm|be\s+sure|be\s+certain|see|judge|assess|answer)|unclear|not\s+clear|uncertain|"
    r"insufficient|not\s+enough\s+information|i'm\s+sorry|i\s+am\s+sorry|as\s+an\s+ai|"
    r"(?:predict|determine|identify|analy[sz]e|tell|say)\s+which|and\s+which\s+will\s+continue|"
    r"i\s+will\s+(?:analy[sz]e|predict|determine))\b"
)
#: an answer that says nothing at all collides (checked on clauses that name no specific object)
GLOBAL = re.compile(
    r"\b(?:objects?|targets?|shapes?|items?|bodies|collisions?|contacts?|impacts?|anything|everything|nothing|"
    r"none|any\s+of|all\s+of|each\s+other|one\s+another|pairs?|two\s+of\s+them|no\s+two)\b"
)
GLOBAL_NONE = re.compile(
    r"\bnothing\s+(?:will\s+|is\s+going\s+to\s+|should\s+)?(?:collide|hit|crash|touch|happen|be\s+hit)|"
    r"\bnone\s+of\s+(?:the\s+|them|these)|\bno\s+(?:two\s+|pair\s+of\s+)?(?:objects?|targets?|shapes?|items?)\b|"
    r"\bno\s+two\b|"
    r"\bno\s+(?:\w+\s+)?(?:collisions?|contacts?|impacts?)\b|\bno\s+(?:one|object)\s+(?:will|is)|"
    r"\b(?:all|every|each)\b"
)
NOT_GLOBAL = re.compile(
    r"\b(?:(?<!each\s)(?<!one\s)other|others|further|more|additional|else|another|second|subsequent)\b"
)
QUESTION_START = re.compile(r"^(?:could|will|would|does|do|is|are|can|might|may|should|did|what|which|how)\b")
ELLIPTIC_START = re.compile(
    r"^(?:or|alternatively|and|also|not|while|whereas|as\s+well\s+as|plus|possibly|perhaps|maybe|potentially|"
    r"otherwise|then|"
    r"and\s+then|"
    r"and\s+possibly|or\s+possibly|or\s+perhaps|or\s+even|and\s+also|but|as\s+well)\b"
)
PRE_PREP = re.compile(
    r"\b(?:toward|towards|to|near|past|behind|beside|from|(?<!side\s)(?<!corner\s)(?<!edge\s)(?<!face\s)(?<!back\s)"
    r"(?<!rear\s)(?<!end\s)(?<!collision\s)(?<!impact\s)(?<!contact\s)of|at|around|than|like|across|in\s+front\s+of|"
    r"away\s+from|next\s+to|close\s+to|alongside|over|under|beyond|along)\s+(?:the\s+)?$"
)
CHAIN_PREP = re.compile(r"\b(?:into|against|onto)\s+(?:the\s+)?$")
BETWEEN = re.compile(r"\b(?:between|among|of)\b")
PRONOUN_LAST = re.compile(  # "which then hits C"; "that" only as a relative ("that will hit", not "that it hits")
    r"\b(?:which|that(?!\s+(?:it|they|the|this|a|an|both|each|its|their|there|one|all|no|none)\b)|the\s+latter|"
    r"(?:causing|sending|pushing|knocking|making|forcing|propelling|driving|deflecting|setting)\s+(?:it|them))\b"
)
PRONOUN_ALL = re.compile(r"\b(?:they|both|the\s+two|these\s+two|those\s+two|the\s+pair|the\s+two\s+objects)\b")
PRONOUN_SUBJ = re.compile(r"\b(?:it|this|the\s+former|this\s+object)\b")
BARE_PASSIVE = re.compile(
    r"\b(?:be|get|gets|getting|got|been)\s+(?:\w+\s+)?(?:hit|struck|knocked|bumped|rammed|clipped|smashed|slammed)\b"
    r"(?!\s+(?:by|into))"
)
LIKEWISE = re.compile(r"^(?:as\s+(?:will|do|does|would)|and\s+so\s+(?:will|do|does)|so\s+(?:will|do|does)|likewise)\b")
VERB_START = re.compile(r"^(?:will|won't|would|is|are|may|might|could|should|continues?|remains?|stays?|keeps?)\b")
IT_INTO = re.compile(r"^\w+\s+(?:it|them)\s+(?:\w+\s+)?(?:into|against|onto)\b")
MOTION = re.compile(
    r"\b(?:roll|rolls|rolling|rolled|move|moves|moved|go|goes|going|went|head|heads|heading|travel\w*|slide|slides|"
    r"sliding|continue\w*|keep|keeps|keeping|stop|stops|stopping|pass|passes|passing|bounce|bounces|turn\w*|veer\w*)\b"
)
VERBISH = re.compile(
    r"\b(?:will|would|won't|is|are|was|were|may|might|could|can|cannot|should|shall|moves?|moving|rolls?|"
    r"rolling|slides?|sliding|continues?|remains?|stays?|keeps?|travels?|heads?|seems?|appears?|it's|that's|"
    r"there's|they're|it'll|they'll)\b"
)


@dataclass
class Parsed:
    """What an answer says. `pairs` and `unhit` are the reader's; `denied` (pairs said not to collide) and
    `claimed_unhit` (every object called unscathed, even one also said to be hit) keep strict credit honest."""

    status: str = "unreadable"
    pairs: set = field(default_factory=set)  # frozensets of two object labels (or wrong names)
    unhit: set = field(default_factory=set)
    mentioned: set = field(default_factory=set)
    denied: set = field(default_factory=set)
    claimed_unhit: set = field(default_factory=set)
    reason: str = ""  # why an answer is unreadable

    @property
    def hit(self) -> set:
        return {x for p in self.pairs for x in p}

    @property
    def unparsed(self) -> bool:
        return self.status == "unreadable"

    def as_dict(self) -> dict:
        return {
            "status": self.status,
            "pairs": sorted(sorted(p) for p in self.pairs),
            "hit": sorted(self.hit),
            "unhit": sorted(self.unhit),
            "mentioned": sorted(self.mentioned),
            "reason": self.reason,
        }


# ------------------------------------------------------------------------------------------------ normalisation

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
    """"A -> B -> C" is two hits, A-B and B-C: "A -> B; B -> C"; "A -> B, C -> none" is two items."""
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
    t = re.sub(r"\b(?:nothing|no\s+objects?|none\s+of\s+(?:them|the\s+objects))\s+will\s+(?:collide|hit\s+anything)\s+"
               r"unless\b", "no other collisions, unless", t, flags=re.IGNORECASE)  # "nothing collides unless A ..."
    t = "\n".join(_arrow_chain(line) for line in t.split("\n"))
    t = ARROW_NOT_OBJECT.sub(_arrow_verdict, t)
    t = ARROW.sub(" collides with ", t)
    t = re.sub(r"\s+(?:\+|&|vs\.?|versus|x|\u00d7|<>)\s+", " and ", t)
    t = re.sub(r"[ \t]+", " ", t)
    return t.lower().strip()


# ------------------------------------------------------------------------------------------------ structured line

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


# ------------------------------------------------------------------------------------------------ layout

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
NO = re.compile(
    rf"^(?:{_CROSS}\s*)?(?:no|n|false|none|no collision|miss|misses|unlikely|-|unscathed|safe|{_CROSS})$"
)


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


# ------------------------------------------------------------------------------------------------ objects


@dataclass
class Mention:
    start: int
    end: int
    names: list  # scene labels, wrong names ("red cylinder"), or OTHERS
    ambiguous: bool = False


def _scene(labels: list[str]) -> tuple[dict, dict]:
    by_color = {lab.split()[0]: lab for lab in labels}
    by_shape: dict[str, list[str]] = {}
    for lab in labels:
        by_shape.setdefault(lab.split()[-1], []).append(lab)
    return by_color, by_shape


def find_mentions(clause: str, labels: list[str]) -> list[Mention]:
    """The objects a (normalised) clause names, in order."""
    by_color, by_shape = _scene(labels)
    found: list[Mention] = []
    taken = [False] * len(clause)

    def add(m, names, ambiguous=False):
        if any(taken[m.start() : m.end()]):
            return
        for i in range(m.start(), m.end()):
            taken[i] = True
        found.append(Mention(m.start(), m.end(), names, ambiguous))

    for m in COLOR_MENTION.finditer(clause):
        cols = re.findall(rf"\b(?:{_ALLC})\b", m.group("cols"))
        noun = m.group("noun") or ""
        shape = SHAPES.get(noun) or PLURALS.get(noun)
        names = []
        for c in cols:
            c = "gray" if c == "grey" else "gold" if c == "golden" else c
            lab = by_color.get(c)
            if len(cols) > 1 or shape is None:
                names.append(lab or f"{c} {shape or 'object'}")
            else:
                names.append(lab if lab and lab.split()[-1] == shape else f"{c} {shape}")
        add(m, names)
    for m in OTHERS_RE.finditer(clause):
        add(m, [OTHERS])
    for m in SHAPE_GROUP.finditer(clause):
        shape = PLURALS[m.group("plural")]
        group = by_shape.get(shape, [])
        num = NUMBER.get((m.group("num") or "").split()[-1] if m.group("num") else "")
        ok = len(group) >= 2 and (num is None or num == len(group))
        add(m, list(group) if ok else [f"some {shape}s"], ambiguous=not ok)
    for m in SHAPE_ONE.finditer(clause):
        shape = SHAPES[m.group("shape")]
        if shape == "cylinder" and m.group("shape") == "can" and not re.search(r"\bthe\s+$", clause[: m.start()]):
            continue  # "can" the verb
        group = by_shape.get(shape, [])
        add(m, [group[0]] if len(group) == 1 else [f"the {shape}"], ambiguous=len(group) != 1)
    return sorted(found, key=lambda x: x.start)


# ------------------------------------------------------------------------------------------------ clauses

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
    COLLIDE.pattern + "|" + MISS.pattern + "|" + UNSCATHED.pattern + "|" + VERBISH.pattern
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


def _colours(text: str) -> int:
    return len(re.findall(rf"\b(?:{_ALLC})\b", text))


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


# ------------------------------------------------------------------------------------------------ reading


@dataclass
class Reading:
    """The result of reading clause after clause; `prev_*` are what the next clause may refer back to."""

    asserted: dict = field(default_factory=dict)  # pair -> list item
    denied: dict = field(default_factory=dict)  # pair -> list item
    unhit: dict = field(default_factory=dict)  # object -> list item: objects of a denying clause
    safe: dict = field(default_factory=dict)  # object -> list item: objects called unscathed / untouched / safe
    mentioned: set = field(default_factory=set)
    global_none: int | None = None  # the list item of a "nothing collides" statement
    global_safe: int | None = None
    ambiguous: bool = False
    prev_subject: list = field(default_factory=list)
    prev_objects: list = field(default_factory=list)
    prev_polarity: str | None = None
    prev_all: list = field(default_factory=list)  # every object the previous clause named
    recent: list = field(default_factory=list)  # objects in the order last named


def _names(ms: list[Mention]) -> list[str]:
    return list(dict.fromkeys(n for m in ms for n in m.names))


def _pairs_among(names: list[str]) -> list[frozenset]:
    return [frozenset(p) for p in itertools.combinations(names, 2) if p[0] != p[1]]


def _cross(a: list[str], b: list[str]) -> list[frozenset]:
    return [frozenset((x, y)) for x in a for y in b if x != y]


def read_clause(clause: str, item: Item, labels: list[str], r: Reading) -> None:
    """Read one clause into `r` (rules 5-8 of the module docstring)."""
    c = CORRECTED.sub(" ", NEUTRAL.sub(" ", clause)).strip()
    c = re.sub(r"^but\s+(?=(?:the\s+)?(?:" + _ALLC + r")\b.*\b(?:will|would|may|might|could)\b)", "", c)
    ms = find_mentions(c, labels)
    before, r.prev_all = r.prev_all, (_names(ms) or r.prev_all)
    recent = list(r.recent)
    r.recent = [n for n in r.recent if n not in _names(ms)] + [n for n in _names(ms) if n != OTHERS]
    r.mentioned.update(n for m in ms for n in m.names if n != OTHERS)
    exc = EXCEPT.search(c)
    kept = _names([m for m in ms if exc and m.start > exc.start()])
    if exc and (UNSCATHED.search(c) or MISS.search(c)) and GLOBAL.search(c[: exc.start()]):
        for n in labels:  # "all objects except A and B stay unscathed"
            if n not in kept:
                r.safe.setdefault(n, item.item)
        r.prev_subject, r.prev_objects, r.prev_polarity = kept, [], "safe"
        return
    if exc and NEG.search(c[: exc.start()]) and COLLIDE.search(c) and len(kept) >= 2 and not ms[0].start < exc.start():
        _record(_pairs_among(kept), "hit", kept, item, r, ms)  # "no collision other than the one between A and B"
        r.safe.setdefault(OTHERS, item.item)
        r.prev_subject, r.prev_objects, r.prev_polarity = kept, [], "hit"
        return
    if (PAST.search(c) and not FUTURE.search(c)) or item.question or UNCERTAIN.search(c):
        if ms:  # "Will the red cube hit the blue sphere? Yes, it will." -- a referent, not a prediction
            r.prev_subject, r.prev_objects, r.prev_polarity = _names(ms), [], None
        return
    neg = NEG.search(c)
    verb = COLLIDE.search(c) or (REACH.search(c) if neg else None)
    miss = MISS.search(c)
    safe = UNSCATHED.search(c) or (neg and AFFECTED.search(c))
    anchor0 = verb or miss or safe
    refers = anchor0 and r.prev_subject and (PRONOUN_ALL.search(c[: anchor0.start()]) or PRONOUN_LAST.search(
        c[: anchor0.end()]) or PRONOUN_SUBJ.search(c[: anchor0.start()]) or ELLIPTIC_START.match(c))
    if not ms and (not refers or re.search(r"\b(?:all|every|none|nothing|no)\b", c)):
        _read_objectless(c, verb, neg, miss, safe, r, item.item, labels)
        return
    if verb and (not miss or verb.start() < miss.start()):
        polarity = "deny" if neg else "hit"
        anchor = verb
    elif miss:
        near = NEG.search(re.sub(r"^(?:if|when|unless)\b[^,]*,", "", c[: miss.start()]))  # not "if nothing changes,"
        polarity = "hit" if near and not re.search(r"narrowly|just", c) else "deny"
        anchor = miss
    elif safe:
        if neg and not AFFECTED.search(c) and not (neg.start() > safe.start()):
            return  # "will not stay unscathed": hit by something unnamed
        if not ms and PRONOUN_SUBJ.search(c[: safe.start()]):
            ms = [Mention(0, 0, list(r.prev_subject[:1]))]  # "it will continue unscathed"
        elif not ms and (ELLIPTIC_START.match(c) or VERB_START.match(c)):
            ms = [Mention(0, 0, list(r.prev_subject))]  # "... and will continue unscathed"
        for n in _names(ms):
            r.safe.setdefault(n, item.item)
        r.prev_subject, r.prev_objects, r.prev_polarity = _names(ms), [], "safe"
        return
    elif LIKEWISE.match(c) and r.prev_polarity in ("hit", "deny") and len(_names(ms)) >= 2:
        _record(_pairs_among(_names(ms)), r.prev_polarity, _names(ms), item, r, ms)  # "..., as will C and D"
        return
    elif LIKEWISE.match(c) and r.prev_polarity in ("hit", "deny") and len(_names(ms)) == 1 and r.prev_objects:
        names = _names(ms)  # "A will hit B, and so will C": C does what A does, to B
        _record(_cross(names, r.prev_objects), r.prev_polarity, names, item, r, ms)
        return
    elif ELLIPTIC_START.match(c) and r.prev_polarity in ("hit", "deny") and r.prev_subject and not (
        VERBISH.search(c) or MOTION.search(c)
    ):  # "or the green cylinder" continues; "and roll toward C" / "then B rolls on" is a verb of its own
        names = _names(ms)
        pol = "deny" if neg else r.prev_polarity
        if not neg and r.prev_polarity == "deny" and re.match(r"(?:but|instead|rather)\b", c):
            pol = "hit"  # "A won't hit B but C": the contrast names what A does hit
        _record(_cross(r.prev_subject, names), pol, names, item, r, ms)
        return
    else:  # reasoning or a description ("the red cube moves toward the blue sphere"): only a referent
        r.prev_subject, r.prev_objects, r.prev_polarity = _grammatical_subject(c, ms), [], None
        return
    pre = [m for m in ms if m.end <= anchor.start() and not PRE_PREP.search(c[: m.start])]
    post_all = [m for m in ms if m.start >= anchor.end()]
    post = [m for m in post_all if _object_of_verb(c, anchor, m)]
    subject = _names(pre) or _subject_from_context(c, anchor, post, r, recent)
    it_into = IT_INTO.search(c[anchor.start() :])
    if it_into and subject and r.prev_objects and post and not PRONOUN_LAST.search(c[: anchor.end()]):
        mid = r.prev_objects[-1:]  # "hit B and knock it into C": A-B and B-C
        _record(_cross(subject, mid) + _cross(mid, _names(post)), polarity, _names(ms), item, r, ms)
        r.prev_subject, r.prev_objects, r.prev_polarity = mid, _names(post), polarity
        return
    pairs = _pairs_of(c, anchor, subject, post, ms, r, before)
    if not pairs and polarity == "hit" and len(subject) == 1 and len(labels) == 2 and BARE_PASSIVE.search(c):
        pairs = [frozenset(labels)]  # "B will get hit" in a scene of two: by the other object
    objects = _names(post)
    _record(pairs, polarity, list(dict.fromkeys(_names(ms) + subject)), item, r, ms)
    r.prev_subject, r.prev_objects, r.prev_polarity = subject, objects or subject, polarity


def _object_of_verb(c: str, anchor: re.Match, m: Mention) -> bool:
    """A mention after the verb is its object unless a preposition of place stands before it ("hits B near C");
    "the collision of A with B", "into C" and a mention right after the verb ("passes behind B") are objects."""
    gap = re.sub(r"\bthe\b", "", c[anchor.end() : m.start]).strip()
    if not gap or gap in ("over", "down", "aside") or CHAIN_PREP.search(c[: m.start]):  # "knocks over B"
        return True
    return not PRE_PREP.search(c[: m.start])


def _grammatical_subject(c: str, ms: list[Mention]) -> list[str]:
    """The objects a verbless-for-us clause is about: those named before its first verb and not after a
    preposition ("the green sphere is rolling toward the yellow cube" -> the green sphere)."""
    verb = VERBISH.search(c)
    subj = [m for m in ms if (verb is None or m.end <= verb.start()) and not PRE_PREP.search(c[: m.start])]
    return _names(subj or ms)


def _subject_from_context(c: str, anchor: re.Match, post: list[Mention], r: Reading, recent: list) -> list:
    """The subject of a clause that names none before its verb: "which then hits C" (the previous clause's last
    object), "they collide" (the previous objects, or the last two named), "then hits C" / "it hits C" (the
    previous subject); none for "a collision between A and B" or "there will be ..."."""
    head = c[: anchor.start()]
    between = len(post) >= 2 and bool(BETWEEN.search(c[anchor.end() : post[0].start]))
    if PRONOUN_LAST.search(c[: anchor.end()]) and r.prev_objects:
        return r.prev_objects[-1:]
    plural = PRONOUN_ALL.search(head) or re.search(r"\b(?:between|of)\s+them\b", c)
    if plural and len(set(r.prev_subject + r.prev_objects)) >= 2:
        return list(dict.fromkeys(r.prev_subject + r.prev_objects))
    if plural and len(recent) >= 2:  # "A moves toward B ... a collision between them"; "A ... B ... They collide."
        return recent[-2:]
    left = [n for n in r.prev_subject if n not in _names(post)]
    if PRONOUN_SUBJ.search(head) and len(r.prev_subject) > 1 and len(left) == 1:
        return left  # "A and B ... since A is faster, it will hit B": "it" is the one that is not the object
    if PRONOUN_SUBJ.search(head) and len(r.prev_subject) > 1:
        r.ambiguous = True  # "A and B move fast. It will hit C.": which one?
        return []
    if not between and r.prev_subject and not re.search(r"\bthere\b", head):
        return list(r.prev_subject)
    return []


def _pairs_of(
    c: str, anchor: re.Match, subject: list, post: list[Mention], ms: list[Mention], r: Reading, before: list
) -> list[frozenset]:
    """Each subject with each object after the verb ("A hits B and C"), the object before "into" with the one
    after it ("pushes B into C"); without objects, the subjects pair up ("A and B collide"); without a subject,
    the objects do ("a collision between A and B"); one subject and "it" / a bare passive: the other object named
    here or just before ("B is in A's way and will get hit")."""
    pairs: list[frozenset] = []
    if post and subject:
        prev = None
        for m in post:
            chained = prev is not None and CHAIN_PREP.search(c[prev.end : m.start])
            pairs += _cross(prev.names, m.names) if chained and prev is not None else _cross(subject, m.names)
            prev = m
    elif post:
        pairs = _pairs_among(_names(post))
    elif len(subject) >= 3 and not NEG.search(c) and not re.search(r"\b(?:all|each\s+other|one\s+another|every)\b", c):
        r.ambiguous = True  # "red cube, blue sphere, green cylinder will collide": which pairs?
    elif len(subject) >= 2:
        pairs = _pairs_among(subject)
    elif subject and (PRONOUN_SUBJ.search(c[anchor.end() :]) or BARE_PASSIVE.search(c)):
        others = [n for n in _names(ms) if n not in subject] or [
            n for n in r.prev_objects + r.prev_subject + before if n not in subject
        ]
        pairs = _cross(subject, others[-1:])
    return pairs


def _record(pairs: list, polarity: str, names: list, item: Item, r: Reading, ms: list[Mention]) -> None:
    if any(m.ambiguous for m in ms) and (pairs or polarity == "deny"):
        r.ambiguous = True
    if polarity == "hit":
        for p in pairs:
            if OTHERS not in p:
                r.asserted.setdefault(p, item.item)
    else:
        for p in pairs:
            if OTHERS not in p:
                r.denied.setdefault(p, item.item)
        for n in names:
            r.unhit.setdefault(n, item.item)


def _read_objectless(c: str, verb, neg, miss, safe, r: Reading, item: int, labels: list[str]) -> None:
    """A clause naming no specific object: "no two objects will collide", "all objects remain unscathed"; in a
    scene of two, "the (two) objects will collide"."""
    if verb and not neg and len(labels) == 2 and re.search(r"\b(?:the|both)\s+(?:two\s+)?objects\b", c):
        r.asserted.setdefault(frozenset(labels), item)
        return
    if re.fullmatch(r"(?:none|nothing|no|no collisions?|zero|0)[.!]?", c.strip()):
        r.global_none = item  # "Answer: none."
        return
    if verb and not neg and len(r.prev_all) == 2 and re.search(
        r"^(?:causing|resulting|leading|ending|so|which|and)\b|\bthe\s+two\b|\bthem\b", c
    ):  # "A's path will cross B's, causing a collision"
        r.asserted.setdefault(frozenset(r.prev_all), item)
        return
    if not GLOBAL.search(c):
        return
    if NOT_GLOBAL.search(c):  # "no other collisions": the objects in no predicted pair are unscathed
        if re.search(r"\bno\b|\bnone\b|\bnothing\b", c) or (verb and neg):
            r.safe.setdefault(OTHERS, item)
        return
    if (verb and neg) or (miss and not neg) or (safe and not neg):
        if GLOBAL_NONE.search(c) or re.search(r"\b(?:objects|they|them|targets|shapes)\b", c):
            r.global_safe = item
    elif GLOBAL_NONE.search(c) and re.search(r"\bno\b|\bnone\b|\bnothing\b", c):
        r.global_none = item


_M = r"(?:the\s+)?" + _MENTION
#: word orders said plainly before reading (each keeps the answer's meaning): a leading participle takes the main
#: clause's subject ("after bouncing off B, A will hit C" -> "A is bouncing off B, and then A will hit C"); a named
#: object sent into another hits it ("sending B into C" -> "B crashes into C"); "neither sphere" is "neither of the
#: spheres"
REPHRASE = [
    (re.compile(r"^(?:after|upon)\s+(\w+ing\b[^,]*),\s*(" + _M + r")\s+"), r"\2 is \1, and then \2 "),
    (re.compile(r"\b(?:sending|knocking|pushing|propelling|driving|causing)\s+(" + _M + r")\s+(?:to\s+\w+\s+)?into\b"),
     r"\1 crashes into"),
    (re.compile(r"\bneither\s+(sphere|cube|cylinder|ball|box|block|can)\b"), r"neither of the \1s"),
]
#: a whole answer that is only two objects joined by a pairing sign: that pair ("A & B", "A x B", "A - B"); a comma
#: ("red cube, blue sphere") lists objects and stays unreadable
TERSE = re.compile(r"^\s*(" + _M + r")\s*(?:&|\+|/|-|\u2013|\u2014|\bx\b|\bwith\b|\bvs\.?)\s*(" + _M + r")\s*\.?\s*$")
#: "Collision: no." is none; "Collision: yes. Objects: A and B" names the pair
VERDICT_LINE = [
    (re.compile(r"^\s*collisions?\s*:\s*no\s*\.?\s*$", re.MULTILINE), "no collisions."),
    (re.compile(r"\bcollisions?\s*:\s*yes\s*[.,;]?\s*(?:objects?|pairs?|between)\s*:\s*"), "collisions: "),
]


def rephrase(sentence: str) -> str:
    """`sentence` with the word orders of REPHRASE said plainly."""
    for rx, sub in REPHRASE:
        sentence = rx.sub(sub, sentence)
    return sentence


def _terse(text: str) -> str:
    """An answer of only two object names joined by a pairing sign (read before normalising, which spells "&" as
    "and") becomes "A will collide with B"; verdict lines are spelled out."""
    m = TERSE.match(text.strip().lower())
    if m and "\n" not in text.strip():
        return f"{m.group(1)} will collide with {m.group(2)}."
    t = normalize(text)
    for rx, sub in VERDICT_LINE:
        t = rx.sub(sub, t)
    return t


def parse(text: str, labels: list[str], structured: bool = False) -> Parsed:
    """Read an answer (module docstring). `structured`: the answer was asked to end with a COLLISIONS line."""
    strict = read_structured(text, labels)
    if strict is not None and (strict.status != "unreadable" or structured):
        return strict
    if structured:
        return Parsed(reason="no COLLISIONS line")
    t = _terse(text)
    if not t:
        return Parsed(reason="empty answer")
    t = final_part(table_text(json_text(t)))
    r = Reading()
    for it in sentences(t):
        for clause in split_clauses(rephrase(it.text)):
            read_clause(clause, it, labels, r)
    return _conclude(r, labels)


def _conflicts(a: dict, b: dict) -> bool:
    """A key both asserted and denied in the same list item (or in running text: item numbers equal)."""
    return any(k in b and b[k] == v for k, v in a.items())


def _conclude(r: Reading, labels: list[str]) -> Parsed:
    p = Parsed(mentioned=set(r.mentioned))
    pairs = set(r.asserted)
    hit = {x for q in pairs for x in q}
    others = {x for x in labels if x not in hit}
    safe = set(r.safe)
    if OTHERS in safe:
        safe = (safe - {OTHERS}) | others
    claimed = set(r.unhit) | safe
    if OTHERS in claimed:
        claimed = (claimed - {OTHERS}) | others
    said_none = r.global_none is not None or r.global_safe is not None
    if r.global_safe is not None and not pairs:
        claimed |= set(labels)
    p.denied, p.claimed_unhit = set(r.denied), safe
    hit_items = {x: i for q, i in r.asserted.items() for x in q}
    if r.ambiguous:
        p.reason = "an object the answer names cannot be told apart in this scene"
    elif _conflicts(r.asserted, r.denied) or _conflicts(hit_items, r.safe):
        p.reason = "the answer says a pair collides and does not"
    elif pairs and (set(r.asserted.values()) & {r.global_none, r.global_safe} or (said_none and not any(
        r.asserted.values()))):
        p.reason = "the answer says nothing collides and names a collision"
    elif pairs:
        p.status, p.pairs = "pairs", pairs
        p.unhit = claimed - hit
        return p
    elif said_none or (labels and set(labels) <= claimed | {x for q in r.denied for x in q}):
        p.status, p.unhit = "none", set(labels)
        return p
    elif claimed or r.denied:  # only denials ("A will miss B"): a prediction that nothing named collides
        p.status, p.unhit = "none", claimed
        return p
    else:
        p.reason = "no prediction a reader can take"
    p.unhit = set()
    return p


# ------------------------------------------------------------------------------------------------ scores


@dataclass
class Score:
    tp: int
    fp: int
    fn: int
    precision: float
    recall: float
    f1: float
    outcome_correct: bool  # says "some collision" exactly when there is one
    strict: bool  # the collision pairs exactly right and no hit object called unscathed
    unparsed: bool = False  # the answer could not be read: every column 0 / False

    def as_dict(self) -> dict:
        return dict(self.__dict__)


def score(
    text: str, labels: list[str], true_pairs: list, true_unhit: list | None = None, structured: bool = False
) -> tuple[Parsed, Score]:
    """Pairs precision/recall/F1 for one answer. With no true pair and none predicted, all three are 1 (a correct
    "nothing collides"); with predictions but no true pair, precision 0 and recall 1; with true pairs and none
    predicted, precision 1 (nothing wrong said) and recall 0, so F1 = 0. An unreadable answer scores 0 on every
    column (its true pairs count as missed in the micro sums) and is flagged `unparsed`. Strict credit also needs
    that no true pair is denied and no hit object is called unscathed anywhere in the answer."""
    parsed = parse(text, labels, structured)
    truth = {frozenset(p) for p in true_pairs}
    if parsed.unparsed:
        return parsed, Score(0, 0, len(truth), 0.0, 0.0, 0.0, False, False, True)
    tp = len(parsed.pairs & truth)
    fp = len(parsed.pairs - truth)
    fn = len(truth - parsed.pairs)
    precision = tp / (tp + fp) if tp + fp else 1.0
    recall = tp / (tp + fn) if tp + fn else 1.0
    f1 = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    true_hit = {x for p in truth for x in p}
    strict = (
        parsed.pairs == truth
        and not (parsed.claimed_unhit & true_hit)
        and not (parsed.denied & truth)
        and not (parsed.unhit & true_hit)
    )
    return parsed, Score(tp, fp, fn, precision, recall, f1, bool(parsed.pairs) == bool(truth), strict)


def aggregate(scores: list[Score]) -> dict:
    """Micro (pooled pairs) and macro (mean per answer) precision/recall/F1, outcome accuracy, strict rate and the
    unparsed rate; unparsed answers stay in every denominator with 0s."""
    n = len(scores)
    if not n:
        return {"n": 0}
    tp, fp, fn = (sum(getattr(s, k) for s in scores) for k in ("tp", "fp", "fn"))
    mp = tp / (tp + fp) if tp + fp else 1.0
    mr = tp / (tp + fn) if tp + fn else 1.0
    return {
        "n": n,
        "micro_precision": mp,
        "micro_recall": mr,
        "micro_f1": 0.0 if mp + mr == 0 else 2 * mp * mr / (mp + mr),
        "macro_precision": sum(s.precision for s in scores) / n,
        "macro_recall": sum(s.recall for s in scores) / n,
        "macro_f1": sum(s.f1 for s in scores) / n,
        "outcome_accuracy": sum(s.outcome_correct for s in scores) / n,
        "strict": sum(s.strict for s in scores) / n,
        "unparsed_rate": sum(s.unparsed for s in scores) / n,
    }


# ------------------------------------------------------------------------------------------------ event choices

_LETTER = r"(?:(?<![\w'])([AB])(?![\w'])|(?<![\w'])([ab])(?=\s*[).:\]]|\s*$))"
CHOICE_EXPLICIT = re.compile(
    r"\b(?:the\s+)?(?:correct\s+|right\s+|best\s+|final\s+)?(?:answer|option|choice|description)\s*"
    r"(?:is|would\s+be|:|=|-)?\s*(?:option\s+)?[(\[]?\s*([ab])\b(?![\w'])|\b(?:i\s+(?:choose|pick|select|go\s+with)|"
    r"pick|choose|select|go\s+with)\s+(?:option\s+)?[(\[]?([ab])\b(?![\w'])|"
    r"\b(?:so|therefore|thus|hence|i\s+think|i\s+believe|i'd\s+say)\s*,?\s*(?:option\s+)?[(\[]?([ab])\b(?![\w'])",
    re.IGNORECASE,
)
#: "The first one." / "the second description": the option by its place
CHOICE_ORDINAL = re.compile(
    r"^\W*(?:the\s+)?(first|second|former|latter)(?:\s+(?:one|option|description|choice|scenario|outcome|answer))?"
    r"\W*$",
    re.IGNORECASE,
)
#: a revision: "A. Wait - looking again ... B." -- the letter after the last one decides
CHOICE_REVISION = re.compile(r"\b(?:wait|actually|on\s+second\s+thought|correction|no,\s+sorry|scratch\s+that)\b", re.I)
CHOICE_NEGATED = re.compile(
    r"\b(?:not|rather\s+than|instead\s+of|unlike|rule\s+out|ruling\s+out|eliminate|than)\s+(?:option\s+)?[(\[]?"
    r"\s*([ab])\b(?![\w'])|(?<![\w'])(?:option\s+)?([ab])[)\]]?\s+(?:is|seems|would\s+be|appears)\s+"
    r"(?:not|wrong|incorrect|false|implausible|unlikely|impossible|ruled\s+out)|(?<![\w'])(?:option\s+)?([ab])[)\]]?"
    r"\s+(?:isn't|is\s+not|doesn't|does\s+not|can't|cannot|won't|will\s+not)\b|"
    r"\b(?:although|though|even\s+though|while|whereas)\s+(?:option\s+)?[(\[]?([ab])\b(?![\w'])",  # a concession
    re.IGNORECASE,
)
CHOICE_LEAD = re.compile(
    r"^\W*(?:option\s+)?[(\[]?([AB])(?:[)\].:,]|\s*$|\s+(?:-|is\b|because\b))|^\W*[(\[]?([ab])[)\].:]"
)
CHOICE_NONE = re.compile(r"\b(?:neither|both\s+(?:a\s+and\s+b|options|are))\b", re.IGNORECASE)


def _article(raw: str, m: re.Match | int) -> bool:
    """An "a" followed by a word is the article ("the answer is a bounce", "A ball will fall"), not option A; a
    capital "A" before a verb or conjunction ("A is right", "A because ...") is the option."""
    end = m if isinstance(m, int) else m.end()
    if raw[end - 1] == "a":
        return re.match(r"\s+[a-z]", raw[end:]) is not None
    nxt = re.match(r"\s+([a-z]+)", raw[end:])
    return raw[end - 1] == "A" and nxt is not None and nxt.group(1) not in _LETTER_VERBS


_LETTER_VERBS = {
    "is", "isn't", "seems", "would", "will", "could", "might", "may", "was", "because", "since", "as", "and", "or",
    "nor", "but", "then", "vs", "versus", "looks", "appears", "fits", "matches", "happens", "wins", "sounds", "it",
}  # fmt: skip


def choice_letter(text: str) -> str | None:
    """The option (A or B) an answer to a two-way event question picks; None when it picks neither or both.
    Negated letters ("Not A", "A is wrong") are dropped; "The answer is B" / "Answer: b" / "I choose B" win; then
    the letter the answer starts with ("B.", "**B**", "(B)"); then the only letter it names; "Not A." alone picks
    B."""
    t = normalize(text) if text else ""
    raw = re.sub(r"\*\*|__", "", "".join(_CHARS.get(c, c) for c in (text or ""))).strip()
    if not t or CHOICE_NONE.search(t):
        return None
    revisions = list(CHOICE_REVISION.finditer(raw))
    if revisions:
        revised = choice_letter(raw[revisions[-1].end() :])
        if revised:
            return revised
    ordinal = CHOICE_ORDINAL.match(raw)
    if ordinal:
        return "A" if ordinal.group(1).lower() in ("first", "former") else "B"
    negated = {x.upper() for m in CHOICE_NEGATED.finditer(raw) for x in m.groups() if x and not _article(raw, m)}
    explicit = {
        x.upper() for m in CHOICE_EXPLICIT.finditer(raw) for x in m.groups() if x and not _article(raw, m)
    } - negated
    if explicit:
        return explicit.pop() if len(explicit) == 1 else None
    lead = CHOICE_LEAD.match(raw)
    if lead:
        letter = next(g for g in lead.groups() if g).upper()
        if letter not in negated:
            return letter
    named = {
        (m.group(1) or m.group(2)).upper() for m in re.finditer(_LETTER, raw) if not _article(raw, m)
    } - negated
    if len(named) == 1:
        return named.pop()
    if not named and len(negated) == 1:
        return ({"A", "B"} - negated).pop()
    return None


def score_choice(text: str, truth: str) -> tuple[str | None, Score]:
    """An event answer scored like a pair answer: every column is 1 when the letter is right, else 0; an answer
    with no readable letter is unparsed."""
    letter = choice_letter(text)
    ok = letter == truth
    v = 1.0 if ok else 0.0
    return letter, Score(int(ok), int(not ok), int(not ok), v, v, v, ok, ok, letter is None)
