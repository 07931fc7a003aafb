"""The words the reader knows: colours, shapes, group names, and the patterns of collision verbs, misses,
unscathed objects, negations (and phrases that only look negative), hedges, time, questions and pronouns."""

from __future__ import annotations

import re


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


def _colours(text: str) -> int:
    return len(re.findall(rf"\b(?:{_ALLC})\b", text))
