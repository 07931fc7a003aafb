"""Reading clause after clause: which pairs are asserted, which denied, which objects stay unscathed; then the
answer's status (rules 5-8 of the package docstring)."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field

from .clauses import Item, sentences, split_clauses
from .layout import final_part, json_text, normalize, read_structured, table_text
from .objects import find_mentions, Mention
from .parsed import Parsed
from .vocabulary import (
    _ALLC,
    _MENTION,
    AFFECTED,
    BARE_PASSIVE,
    BETWEEN,
    CHAIN_PREP,
    COLLIDE,
    CORRECTED,
    ELLIPTIC_START,
    EXCEPT,
    FUTURE,
    GLOBAL,
    GLOBAL_NONE,
    IT_INTO,
    LIKEWISE,
    MISS,
    MOTION,
    NEG,
    NEUTRAL,
    NOT_GLOBAL,
    OTHERS,
    PAST,
    PRE_PREP,
    PRONOUN_ALL,
    PRONOUN_LAST,
    PRONOUN_SUBJ,
    REACH,
    UNCERTAIN,
    UNSCATHED,
    VERB_START,
    VERBISH,
)


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
    refers = (
        anchor0
        and r.prev_subject
        and (
            PRONOUN_ALL.search(c[: anchor0.start()])
            or PRONOUN_LAST.search(c[: anchor0.end()])
            or PRONOUN_SUBJ.search(c[: anchor0.start()])
            or ELLIPTIC_START.match(c)
        )
    )
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
    elif (
        ELLIPTIC_START.match(c)
        and r.prev_polarity in ("hit", "deny")
        and r.prev_subject
        and not (VERBISH.search(c) or MOTION.search(c))
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
    if (
        verb
        and not neg
        and len(r.prev_all) == 2
        and re.search(r"^(?:causing|resulting|leading|ending|so|which|and)\b|\bthe\s+two\b|\bthem\b", c)
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
    (
        re.compile(
            r"\b(?:sending|knocking|pushing|propelling|driving|causing)\s+(" + _M + r")\s+(?:to\s+\w+\s+)?into\b"
        ),
        r"\1 crashes into",
    ),
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
    elif pairs and (
        set(r.asserted.values()) & {r.global_none, r.global_safe} or (said_none and not any(r.asserted.values()))
    ):
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
