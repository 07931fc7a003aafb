"""Which option a free-text answer to a choice question picks, read as a careful reader reads it, or None.

Standard library only: `voebench export lmms-eval` copies this file verbatim into the task folder (as
`newton_choice.py`), so lmms-eval scores choice questions with this very code, without voebench installed.

Options are labels ("True"/"False", object names such as "red ball" or "the blue ball", a Likert question's
"No"/"Somewhat"/"Yes", an event question's "A"/"B"), lettered a), b), c) when `letters` is set. Reading rules:

1. Final answer first. When the answer reasons and then concludes ("Answer: c", "The answer is the bat", "Final
   answer:", "so ...", "therefore ...", "I'd choose/pick/say ...", "the correct option is ..."), the text after
   the last such marker decides; only when it names no option at all is the whole answer read.
2. Options are named by their label as a whole phrase (case-insensitive, underscores as spaces, a leading article
   of the label optional, a plural "s" allowed; a label inside a longer label's occurrence does not count: "cake"
   in "chocolate cake"), by a word only one label has ("the bat" for "baseball bat", "blue" for "the blue ball"),
   and, where options are lettered, by a letter: the answer's first word ("c", "c)", "(c)", "C.", "**C**",
   "c) Yes"; a bare "A" followed by more words is the article, as in "A glass cup breaks"), "option c",
   "answer: c", "(c)", or a stand-alone capital letter. True/False also read "untrue", "correct"/"incorrect",
   a leading "Yes"/"No"/"Right"/"Wrong" and a few other languages' words (vrai, falsch, verdadero...).
   "No"/"Yes" as Likert options count only as an answer word (first word, or followed by punctuation or the end),
   not as a determiner ("there is no recovery").
3. A named option does not count as picked when it is denied ("not the red ball", "isn't true", "neither ... nor",
   "the duck isn't fragile"), a foil of a comparison or concession ("heavier than the ball", "unlike the duck",
   "rather than", "instead of", "followed by", "though the green ball is close") or only listed ("the ball or
   the bat", "True/False", "between b and c, ..."). A negation reaches to the end of its clause (a comma,
   semicolon, dash, "but", ...).
4. A leading letter and a label or another letter that disagrees with it ("a) Yes" where a) is No) are invalid:
   either could be meant. Otherwise one picked option is the answer. No option picked, but one of two options
   denied: the other ("Not true." -> False). Several picked: the answer's first or last sentence if it is only an
   option and no other sentence is only another one ("The red ball. The bat would not bounce."; a bare list of all
   options picks none), else the part after a final "but"/"however"; otherwise none (invalid): never a guess.
"""

from __future__ import annotations

import re

_ARTICLES = ("the", "a", "an")
_TRUE_WORDS = ("vrai", "wahr", "vero", "verdadero", "verdadeiro", "correct")
_FALSE_WORDS = ("faux", "falsch", "falso", "untrue", "incorrect")
_LEAD_TRUE = ("yes", "right")
_LEAD_FALSE = ("no", "wrong")

#: conclusion markers: the text after the last one decides (rule 1)
_FINAL = re.compile(
    r"\b(?:final\s+answer|answer|r[ée]ponse|respuesta|antwort|so|therefore|thus|hence|"
    r"i\s*(?:'d|would|will|'ll)?\s*(?:choose|pick|select|say|go\s+with)|"
    r"(?:correct|best|right)\s+(?:option|choice)(?:\s+is)?)\b[\s\"']*(?:is|would\s+be|:)?[\s\"']*",
    re.IGNORECASE,
)
#: a negation: every option named after it up to the end of its clause is denied
_NEGATOR = re.compile(r"\b(?:not|never|neither|nor|cannot)\b|n't\b|n’t\b", re.IGNORECASE)
#: a comparison foil: options after it (to the end of the clause) are not the answer, nor denied
_FOIL = re.compile(
    r"\b(?:than|unlike|rather\s+than|instead\s+of|other\s+than|except|as\s+opposed\s+to|compared\s+(?:to|with)|"
    r"followed\s+by|though|although)\b(?=(?:\W+\w+){0,3}?\W*$)",
    re.IGNORECASE,
)
#: what may join the options of one foil or denial: "than the red ball and then the blue ball"
_JOIN = re.compile(r"^(?:\s|,|\band\b|\bor\b|\bthen\b|\bnor\b|\bthe\b|\ba\b|\ban\b)*$", re.IGNORECASE)
#: an option denied after its name by a negated copula: "the duck isn't fragile"
_POST_NEG = re.compile(
    r"^\s*(?:is|are|was|were)\s*(?:not\b|n't\b)|^\s*(?:isn't|aren't|wasn't|weren't)\b|"
    r"^\s*(?:would|will|could|does|do|did|can|should)\s*(?:not|n't)\s*(?:[.;,!]|$)|"
    r"^\s*(?:wouldn't|won't|couldn't|doesn't|don't|didn't|can't|shouldn't)\s*(?:[.;,!]|$)",
    re.IGNORECASE,
)  # "the duck isn't fragile"; "a knife would help; a sponge wouldn't." (the verb left out is the pick's)
#: a reason given for the pick: options named only there are not picked ("The blue ball, since the red ball ...")
_REASON = re.compile(r"(?:,|;|\s-|\s—)?\s*\b(?:since|because|as|given\s+that|for)\b", re.IGNORECASE)
#: the statement judged as a whole: "The statement is wrong." -> False
_VERDICT = re.compile(
    r"\b(?:statement|claim|assertion|it|this|that)\s+(?:is|was)\s+(?:(wrong|incorrect|false)|(right|correct|true))\b",
    re.IGNORECASE,
)
_CLAUSE_END = re.compile(r"[,;:.!?\n()—–]|\s-\s|\b(?:but|so|while|whereas|however|because|since)\b", re.IGNORECASE)
#: an option's letter written right before its label: "a) Low", "(b) Somewhat"
_OWN_LETTER = re.compile(r"\(?\b([a-z])\)\s*$", re.IGNORECASE)
_LIST_LEAD = re.compile(
    r"\b(?:between|among|amongst|of|from|either|comparing|considering)\s+(?:(?:the|a|an)\s+)?$", re.IGNORECASE
)
_SENTENCE = re.compile(r"[.!?;:\n]+")
_CONTRAST = re.compile(r"\b(?:but|however|instead)\b", re.IGNORECASE)


def normalize(text: str) -> str:
    """Markdown emphasis and code marks dropped, underscores and odd spaces as spaces, curly quotes straight."""
    t = str(text or "")
    t = t.replace("’", "'").replace("‘", "'").replace("“", '"').replace("”", '"').replace("：", ":")
    t = re.sub(r"\\boxed\{([^{}]*)\}", r"\1", t)  # "Final answer: \boxed{C}"
    t = re.sub(r"[*`#«»]", " ", t).replace("_", " ").replace("\u00a0", " ")
    return re.sub(r"[ \t]+", " ", t).strip()


def _label_core(label: str) -> str:
    words = normalize(label).lower().split()
    while len(words) > 1 and words[0] in _ARTICLES:
        words = words[1:]
    return " ".join(words)


class _Mention:
    __slots__ = ("start", "end", "option", "how", "denied", "foil", "listed")

    def __init__(self, start: int, end: int, option: int, how: str):
        self.start, self.end, self.option, self.how = start, end, option, how
        self.denied = self.foil = self.listed = False


def _find_labels(text: str, labels: list[str]) -> list[_Mention]:
    """Whole-phrase label mentions (longest first, no overlaps), then words only one label has."""
    low = text.lower()
    cores = [_label_core(lab) for lab in labels]
    found: list[_Mention] = []
    taken: list[tuple[int, int]] = []

    def free(a: int, b: int) -> bool:
        return all(b <= s or a >= e for s, e in taken)

    likert = {c for c in cores if c in ("yes", "no")}
    for k in sorted(range(len(cores)), key=lambda i: -len(cores[i])):
        core = cores[k]
        if len(core) == 1 and core.isalpha():
            continue  # single-letter labels ("A"/"B") are read as letters
        phrase = r"\s+".join(map(re.escape, core.split()))
        irregular = re.sub(r"(?:fe|f)$", "ves", core) if re.search(r"[a-z]fe?$", core) else ""
        if irregular and irregular != core:  # "knife" -> "knives", "leaf" -> "leaves"
            phrase = "(?:" + phrase + "|" + r"\s+".join(map(re.escape, irregular.split())) + ")"
        pat = r"(?<![a-z0-9'])(?:(?:the|a|an)\s+)?" + phrase + r"(?:e?s)?(?![a-z0-9])"
        for m in re.finditer(pat, low):
            if not free(*m.span()):
                continue
            if core in likert and not _answer_word(low, m):
                continue
            found.append(_Mention(m.start(), m.end(), k, "label"))
            taken.append(m.span())
    # a word that only one label has ("bat", "blue")
    words = [set(c.split()) - {"the", "a", "an", "of", "and", "or"} for c in cores]
    if len(cores) > 1 and not likert and not {"true", "false"} <= set(cores):
        for k, ws in enumerate(words):
            own = ws - set().union(*(w for j, w in enumerate(words) if j != k))
            for w in own:
                if len(w) < 3:
                    continue
                for m in re.finditer(r"(?<![a-z0-9'])" + re.escape(w) + r"(?:e?s)?(?![a-z0-9])", low):
                    if free(*m.span()):
                        found.append(_Mention(m.start(), m.end(), k, "word"))
                        taken.append(m.span())
    return found


def _answer_word(low: str, m: re.Match) -> bool:
    """A Likert "yes"/"no" used as an answer: first word, or followed by punctuation or the end."""
    before = low[: m.start()].strip(" \"'([")
    after = low[m.end() :]
    return (
        not before
        or before.endswith((":", "-", "—", ")", ".", "\n"))
        or not after.strip()
        or bool(re.match(r"\s*[,.;:!?)\"'\n—–-]", after))
    )


def _true_false(text: str, labels: list[str]) -> list[_Mention]:
    """True/False questions: synonyms of the two options (rule 2)."""
    cores = [_label_core(lab) for lab in labels]
    if sorted(cores) != ["false", "true"]:
        return []
    t, f = cores.index("true"), cores.index("false")
    low = text.lower()
    out = []
    for words, k in ((_TRUE_WORDS, t), (_FALSE_WORDS, f)):
        for w in words:
            for m in re.finditer(r"(?<![a-z])" + w + r"(?![a-z])", low):
                out.append(_Mention(m.start(), m.end(), k, "synonym"))
    for m in _VERDICT.finditer(low):
        out.append(_Mention(m.start(), m.end(), f if m.group(1) else t, "synonym"))
    lead = re.match(r"\W*([a-z]+)\b", low)
    if lead:
        w = lead.group(1)
        if w in _LEAD_TRUE or w in _LEAD_FALSE:
            out.append(_Mention(lead.start(1), lead.end(1), t if w in _LEAD_TRUE else f, "synonym"))
    return out


def _leading_letter(text: str, labels: list[str]) -> _Mention | None:
    """The answer's first word as an offered letter ("c", "c)", "(c)", "C.", "Option C"), or None. A bare "a"
    followed by a word is the article, unless the options are themselves the letters, written as the answer
    writes it (options "a", "b", "c" and the answer "a cup")."""
    n = len(labels)
    m = re.match(r"\s*[\"'\[]?(?:(?:option|choice)\s*)?[(\[]?([a-z])[)\]]?(?=$|[\s.,:;)\]!?\"'-])", text, re.IGNORECASE)
    if not m:
        return None
    letter = m.group(1).lower()
    if ord(letter) - 97 >= n:
        return None
    own = m.group(1) in labels and all(len(lab) == 1 for lab in labels)
    if _article(text, m.end(1)) and not re.match(r"\s*[(\[]", text) and not own:  # "A glass cup breaks"
        return None
    return _Mention(m.start(1), m.end(1), ord(letter) - 97, "lead")


_PAREN = r"\(([a-h])\)"


def _article(text: str, end: int) -> bool:
    """Whether the "a" ending at `end` is the article: a word follows it directly (not "or", "and", "is")."""
    if text[end - 1 : end].lower() != "a":
        return False
    nxt = re.match(r" +([A-Za-z]+)", text[end:])
    return nxt is not None and nxt.group(1).lower() not in ("or", "and", "is", "vs", "versus", "nor")


def _letters(text: str, n: int) -> list[_Mention]:
    """Letters named anywhere: "option c", "answer: c", "(c)", "c)" opening a line, a stand-alone capital."""
    offered = "abcdefgh"[:n]
    out = []
    pats = [
        (
            r"\b(?:option|choice|letter|answer(?:\s+is)?|r[ée]ponse|respuesta|antwort|is|it's|think|say|choose|pick|"
            r"select|with)\s*[:\-]?\s*"
            r"[(\[]?([a-h])[)\]]?(?![a-z0-9'])",
            re.IGNORECASE,
        ),
        (_PAREN, re.IGNORECASE),
        (r"(?m)^\s*([a-h])[).:](?=\s|$)", re.IGNORECASE),
        (r"\b(?:or|and|nor|vs\.?|versus)\s+[(\[]?([a-h])[)\]]?(?![a-z0-9'])", re.IGNORECASE),
        (r"(?:^|[;,:]\s*|\bnot\s+)[(\[]?([a-h])[)\]]?(?=\s*(?:[.;,!?]|$))", re.IGNORECASE),  # "Not a; c."
        (r"(?<![A-Za-z0-9'])([A-H])(?![A-Za-z0-9'])", 0),
    ]
    seen = set()
    for pat, flags in pats:
        for m in re.finditer(pat, text, flags):
            letter = m.group(1).lower()
            if letter not in offered or m.start(1) in seen:
                continue
            if pat != _PAREN and _article(text, m.end(1)):  # "A ball rolls", "and a bit": the article
                continue
            if flags == 0 and m.group(1) == "I":
                continue
            seen.add(m.start(1))
            out.append(_Mention(m.start(1), m.end(1), offered.index(letter), "letter"))
    return out


def _mark(text: str, mentions: list[_Mention]) -> None:
    """Set denied / foil / listed on each mention (rule 3)."""
    for m in mentions:
        # a label written after its own letter ("not a) Low") is read from the letter: the ")" ends no clause
        own = _OWN_LETTER.search(text, 0, m.start)
        anchor = own.start() if own and ord(own.group(1).lower()) - 97 == m.option else m.start
        clause_start = 0
        for e in _CLAUSE_END.finditer(text, 0, anchor):
            clause_start = e.end()
        before = text[clause_start:anchor]
        if _NEGATOR.search(before):
            m.denied = True
        elif _FOIL.search(before):
            m.foil = True
        if _POST_NEG.match(text[m.end :]):
            m.denied = True
    ordered = sorted(mentions, key=lambda x: x.start)
    for a, b in zip(ordered, ordered[1:]):  # a foil reaches over the options joined to it
        if a.foil and not b.denied and _JOIN.match(text[a.end : b.start]):
            b.foil = True
    _mark_lists(text, ordered)


def _mark_lists(text: str, ordered: list[_Mention]) -> None:
    """Options joined into a list are listed, not picked: alternatives ("X or Y", "X/Y", "X vs Y", "X, Y or Z")
    always, "X and Y" after "between", "among", "of", "either" ... A list ends at its last conjunct: in "between
    X and Y, Y" the last Y is the pick."""
    k = 0
    while k < len(ordered):
        run = [ordered[k]]
        gaps: list[str] = []
        while k + len(run) < len(ordered):
            nxt = ordered[k + len(run)]
            gap = _list_gap(text[run[-1].end : nxt.start])
            if gap is None:
                break
            gaps.append(gap)
            run.append(nxt)
        conj = [j for j, g in enumerate(gaps) if g != ","]
        if conj and len({x.option for x in run}) > 1:
            listing = run[: conj[-1] + 2]
            alternative = any(gaps[j] != "and" for j in conj)
            if alternative or _LIST_LEAD.search(text[: listing[0].start]):
                for x in listing:
                    x.listed = True
        k += len(run)


def _list_gap(gap: str) -> str | None:
    """What joins two listed options: ",", "or" (also "/", "vs", "nor"), "and"; None if not a list."""
    g = " ".join(re.sub(r"\b(?:the|a|an)\b", " ", gap.lower()).split())
    if g == ",":
        return ","
    if g in ("or", ", or", "/", "vs", "vs.", "versus", "nor", ", nor"):
        return "or"
    return "and" if g in ("and", ", and") else None


def _options(text: str, labels: list[str], letters: bool) -> tuple[list[_Mention], _Mention | None]:
    ms = _find_labels(text, labels) + _true_false(text, labels)
    lead = None
    if letters:
        lead = _leading_letter(text, labels)
        ms += [m for m in _letters(text, len(labels)) if lead is None or m.start != lead.start]
    _mark(text, ms + ([lead] if lead else []))
    return ms, lead


def _read(text: str, labels: list[str], letters: bool) -> int | None | str:
    """An option index, None (no option named) or "several" (options named, none picked with confidence)."""
    ms, lead = _options(text, labels, letters)
    if not ms and lead is None:
        return None
    letter_ms = [m for m in ms if m.how == "letter" and not (m.denied or m.listed or m.foil)]
    if lead is not None and not lead.listed:
        # another letter, or an option named by its label, that disagrees with the leading letter: "c) Low" where
        # c) is High could be either, so it is neither (two independent held-out labellers read it so)
        named = [m for m in ms if m.how != "letter" and not (m.denied or m.listed or m.foil)]
        if any(m.option != lead.option for m in letter_ms + named):
            return "several"
        return lead.option
    if len({m.option for m in letter_ms}) > 1:
        return "several"
    picked = [m for m in ms if not (m.denied or m.foil or m.listed)]
    options = {m.option for m in picked}
    if len(options) == 1:
        return options.pop()
    if not options:
        denied = {m.option for m in ms if m.denied}
        if len(labels) == 2 and len(denied) == 1:
            return 1 - denied.pop()
        return "several" if ms else None
    return _one_of_several(text, labels, letters)


def _one_of_several(text: str, labels: list[str], letters: bool) -> int | str:
    """Several options picked: the first (else the last) sentence when it is only an option and no other sentence is
    only another option (a bare list of the options picks none), else what follows a final "but"/"however";
    otherwise "several"."""
    sentences = [s for s in _SENTENCE.split(text) if s.strip(" \"'-:,")]
    bares = [_bare(s, labels, letters) for s in sentences]
    if len({b for b in bares if b is not None}) == 1:
        for bare in (bares[:1] + bares[-1:]) if bares else []:
            if bare is not None:
                return bare
    reason = _REASON.search(text)
    if reason and reason.start() > 0:  # "The blue ball, since the red ball and the green ball bounce lower."
        got = _read(text[: reason.start()], labels, letters)
        if isinstance(got, int):
            return got
    contrast = list(_CONTRAST.finditer(text))
    if contrast:
        got = _read(text[contrast[-1].end() :], labels, letters)
        if isinstance(got, int):
            return got
    return "several"


def _bare(sentence: str, labels: list[str], letters: bool) -> int | None:
    ms, lead = _options(sentence, labels, letters)
    picked = {m.option for m in ms if not (m.denied or m.foil or m.listed)}
    if len(picked) != 1:
        return None
    words = re.findall(r"[a-z0-9']+", sentence.lower())
    option = picked.pop()
    core = _label_core(labels[option]).split()
    lead_words = _LEAD_TRUE + _LEAD_FALSE if any(m.how == "synonym" for m in ms) else ()
    skip = ("the", "a", "an", "it's", "it", "is", "answer", *lead_words)
    extra = [w for w in words if w not in core and w not in skip]
    return option if not extra else None


def read_choice(response: str | None, labels: list[str], letters: bool = False) -> str | None:
    """The label of the option `response` picks, or None when it picks none or several (rules in the module
    docstring)."""
    text = normalize(response or "")
    if not text or not labels:
        return None
    finals = list(_FINAL.finditer(text))
    if finals:
        tail = text[finals[-1].end() :]
        got = _read(tail, labels, letters)
        if isinstance(got, int):
            return labels[got]
        if got == "several":
            return None
    got = _read(text, labels, letters)
    return labels[got] if isinstance(got, int) else None
