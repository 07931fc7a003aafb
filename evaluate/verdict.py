"""The verdict a free-text answer gives to a yes/no question, read as a careful reader reads it, or None.

GRASP's protocol (`parsing.parse_binary`) reads only the answer's first word: "Yes and no" is a yes, "- Yes" and
"The answer is no." are invalid. Reports print that number, as the paper does, and beside it this careful reading,
which never guesses: an answer it cannot read with confidence is *unparsed* (None) and counts as wrong.

Standard library only. Reading rules:

1. What is read. Text after the last ``</think>`` (a reasoning block still open, with no answer after it, is
   unparsed); a JSON object's ``answer`` / ``verdict`` / ``plausible`` value when the answer is one; otherwise the
   text with markdown marks, quotes and full-width punctuation normalised. Questions (sentences ending in "?", such
   as an echo of the prompt) are never read as verdicts.
2. Verdict mentions, in order:
   - a yes/no word opening a sentence, line or clause, followed by its end, punctuation or a word that continues an
     answer ("No, it ...", "Yes the ball ...", "No it is not"): yes, yeah, yep, yup, correct, true, indeed, of
     course, absolutely, affirmative, oui, sí, ja, 是, ✅ / no, nope, nah, not at all, not really, certainly not,
     of course not, incorrect, false, negative, non, nein, 不是, 否, ❌. Idioms are not verdicts ("No doubt, ...",
     "no one", "no longer", "no matter");
   - "I (don't) think so", "I (don't) believe so";
   - for plausibility questions, a verdict adjective or verb with its negation: "it is (not) plausible",
     "isn't realistic", "Implausible.", "physically impossible", "not implausible" (a yes), "I don't think it's
     plausible" (a no), "violates / defies / breaks physics", "obeys / is consistent with physics". Hypotheticals
     ("would be plausible", "if it were plausible", "whether it is plausible") are not verdicts.
3. Which mention decides. The text is cut into segments at conclusion and revision markers ("final answer",
   "answer:", "the answer is", "so", "therefore", "thus", "hence", "in conclusion", "overall", "wait", "actually",
   "on second thought", ...). The last segment that holds a mention decides: one polarity is the verdict; both
   ("yes and no", "Yes/No", "No, it is plausible") is unparsed. No mention anywhere is unparsed.
"""

from __future__ import annotations

import json
import re
import unicodedata

YES, NO = "yes", "no"

_QUOTES = str.maketrans(
    {
        "‘": "'",
        "’": "'",
        "ʼ": "'",
        "`": "'",
        "´": "'",
        "“": '"',
        "”": '"',
        "„": '"',
        "«": '"',
        "»": '"',
        "‹": "'",
        "›": "'",
        "—": " - ",
        "–": " - ",
    }
)

# Answer words. Intensifiers ("Absolutely.") are answers only when they stand alone.
_YES_WORDS = (
    "yes",
    "yeah",
    "yep",
    "yup",
    "yea",
    "correct",
    "true",
    "affirmative",
    "oui",
    "sí",
    "ja",
    "да",
    "that's right",
    "that is right",
    "that's correct",
    "that is correct",
    "that's true",
    "that is true",
    "this is true",
    "it is true",
    "it's true",
    "the statement is true",
    "this statement is true",
    "maybe yes",
    "oh yes",
    "not false",
    "sì",
    "evet",
    "네",
    "예",
    "हाँ",
    "हां",
    "indeed it is",
    "it is indeed",
    "yes it is",
    "sim",
    "はい",
    "perhaps yes",
    "是的",
    "是",
    "对",
    "✅",
    "✔",
    "✓",
    "👍",
)
_NO_WORDS = (
    "of course not",
    "absolutely not",
    "certainly not",
    "definitely not",
    "not at all",
    "not really",
    "not quite",
    "probably not",
    "most likely not",
    "likely not",
    "i think not",
    "i guess not",
    "i believe not",
    "maybe not",
    "i suspect not",
    "i doubt it",
    "i wouldn't say so",
    "i would not say so",
    "doesn't seem so",
    "does not seem so",
    "doesn't appear so",
    "does not appear so",
    "doesn't look like it",
    "hayır",
    "아니요",
    "아니오",
    "नहीं",
    "i'm afraid not",
    "não",
    "nao",
    "いいえ",
    "不",
    "✖",
    "perhaps not",
    "that's not true",
    "that is not true",
    "this is not true",
    "it is not true",
    "it's not true",
    "not true",
    "that's false",
    "that is false",
    "that's wrong",
    "that is wrong",
    "the statement is false",
    "this statement is false",
    "no",
    "nope",
    "nah",
    "incorrect",
    "false",
    "negative",
    "non",
    "nein",
    "нет",
    "不是",
    "不对",
    "否",
    "❌",
    "✗",
    "✘",
    "👎",
)
_ALONE_NO = (
    "wrong",
    "untrue",
    "by no means",
    "no way",
    "not a chance",
    "it is not",
    "it's not",
    "it isn't",
    "it does not",
    "it doesn't",
    "it did not",
    "it didn't",
)
_ALONE_YES = (
    "of course",
    "absolutely",
    "certainly",
    "definitely",
    "indeed",
    "sure",
    "sure thing",
    "right",
    "exactly",
    "precisely",
    "undoubtedly",
    "undoubtedly so",
    "you bet",
    "spot on",
)
_PUNCT = r"[.,;:!()\]\-/|。、，\"'}」]"
#: what may follow an answer word for it to count: the end, punctuation, or a word that continues an answer
_CONTINUES = (
    r"(?=\s*(?:$|" + _PUNCT + r"|\b(?:it|it's|its|this|that|the|i|because|since|as|there|they|not|and|or|but|he|she|"
    r"we|you|in|based|given|according|from|to|so|however|although|though|definitely|absolutely|certainly|indeed|"
    r"plausible|implausible|yes|no|well)\b|[\U0001F300-\U0001FAFF✅❌]))"
)
_ALONE = r"(?=\s*(?:$|[.!。;,]))"
_CLAUSE = (
    r"(?:^|(?<=[\n.!;:(\[\"'/|,。、¡¿{✅❌✔✓✗✘✖👍👎「-])|(?<=\band\b)|(?<=\bor\b)|(?<=\byes\b)|(?<=\bno\b)|"
    r"(?<=\bthink\b)|(?<=\bbelieve\b)|(?<=\bsay\b)|(?<=\bguess\b)|(?<=\bprobably\b)|(?<=\blikely\b)|"
    r"(?<=\bso\b)|(?<=\bthus\b)|(?<=\btherefore\b)|(?<=\bhence\b)|(?<=\btowards\b)|(?<=\btoward\b)|"
    r"(?<=\bwith\b)|(?<=\bbut\b)|(?<=\bactually\b)|(?<=\bmean\b)|(?<=\boh\b))\s*"
)


def _alternation(words: tuple[str, ...]) -> str:
    return "|".join(re.escape(w) for w in sorted(words, key=len, reverse=True))


_WORD = _alternation(_YES_WORDS + _NO_WORDS)
#: an answer word where a clause starts: text start, after sentence/clause punctuation, a list mark or a line break
_ANSWER_WORD = re.compile(
    _CLAUSE + r"(?:(" + _WORD + r")" + _CONTINUES + r"|(" + _alternation(_ALONE_YES + _ALONE_NO) + r")" + _ALONE + r")",
    re.IGNORECASE,
)
#: an answer word right after "the answer is", "Answer:", "verdict -"
_MARKED_WORD = re.compile(
    r"\b(?:answer|verdict|response|reply|guess)\s*(?:is|would\s+be|will\s+be|must\s+be|[:=\-])?\s*[\"']?\s*("
    + _WORD
    + r")"
    + _CONTINUES,
    re.IGNORECASE,
)
_IDIOM_AFTER_YES = re.compile(r"\s*,?\s*well\b", re.IGNORECASE)
_IDIOM_AFTER_NO = re.compile(
    r"\s*(?:doubt|one|longer|matter|way\s+to|reason|idea|sign|problem|issue|question|need)\b", re.IGNORECASE
)
#: "yes or no" names the two options, it answers nothing ("Answer only with yes or no.")
_OPTIONS = re.compile(
    r"\byes\s*(?:or|/)\s*no\b(?!\s*[.!]?\s*$)|\b(?:with|say|saying|between)\s+yes\s+(?:or|and)\s+no\b", re.IGNORECASE
)

_THINK_SO = re.compile(
    r"\b(?:i|we|it)\s+(?:((?:do|does|did)\s*n[o']?t|(?:do|does|did)n't|(?:do|does|did)\s+not)\s+)?"
    r"(?:think|believe|guess|suspect|appears?|seems?|hope)\s+so\b",
    re.IGNORECASE,
)

_REALITY = (
    r"(?:\w+\s+){0,5}?(?:physics|gravity|reality|the\s+real\s+world|how\s+objects\s+behave|expectations?|laws?|"
    r"permanence|solidity|continuity|inertia|conservation|momentum|common\s+sense)"
)
_ADJ_YES = (
    r"plausible|plausable|realistic|possible|physically\s+possible|believable|natural|reasonable|consistent\s+with\s+"
    + _REALITY
)
_ADJ_NO = (
    r"implausible|implausable|unrealistic|unphysical|anomalous|unreasonable|non-?physical|impossible|physically\s+impossible|unbelievable|unnatural|inconsistent\s+with\s+"
    + _REALITY
    + r"|not\s+possible"
)
_VERB_NO = (
    r"(?:violates?|violated|defy|defies|defied|break|breaks|broke|contradicts?|contradicted)\s+" + _REALITY + r"|"
    r"hard\s+to\s+believe|(?:something|it)\s+(?:is|'s|seems|looks)\s+(?:\w+\s+)?(?:off|wrong|odd|weird)|"
    r"(?:looks?|seems?)\s+(?:\w+\s+)?(?:wrong|off)|"
    r"(?:could|can)(?:\s*not|n't)\s+(?:\w+\s+)?(?:happen|occur)"
)
_VERB_YES = (
    r"(?:obeys|obeyed|follows|followed|respects|respected)\s+(?:\w+\s+){0,4}?(?:physics|laws?)|"
    r"makes?\s+(?:physical\s+)?sense|(?:looks?|seems?)\s+(?:\w+\s+)?right|"
    r"(?:could|can)\s+(?:\w+\s+)?(?:happen|occur)(?=\s+in\s+(?:real\s+life|reality|the\s+real\s+world))"
)
_NEG = r"(?:not|never|n't|hardly|neither|nor)"
#: a copula (or "seems", "looks") before an adjective; modal hypotheticals are excluded separately
_COPULA = r"(?:is|are|was|were|'s|be|being|been|seems?|seemed|looks?|looked|appears?|appeared|remains?|sounds?)"
_ADVERBS = (
    r"(?:\s+(?:very|quite|entirely|completely|totally|perfectly|fully|highly|physically|really|clearly|"
    r"definitely|certainly|indeed|rather|somewhat|fairly|pretty|reasonably|most|more|likely|probably|"
    r"to\s+be|to\s+me|overall|also|all|in\s+fact))*"
)
_ADJ_MENTION = re.compile(
    r"(?P<lead>(?:^|(?<=[\n.!;:(\[\"'/|,-])|(?<=\b(?:and|but|yet|say)\s)|(?<=\b(?:or|so)\s)|(?<=\bthus\s)|"
    r"(?<=\bhence\s)|(?<=\btherefore\s))\s*)?"
    r"(?:(?P<neg0>\b(?:(?:does|do|did|will)(?:\s+not|n't)|can\s*not|can't|won't)\s+)?(?P<cop>\b"
    + _COPULA
    + r")(?P<neg1>\s+"
    + _NEG
    + r"|n't)?"
    + _ADVERBS
    + r"\s+)?"
    r"(?P<neg2>" + _NEG + _ADVERBS + r"\s+)?"
    r"(?P<pre>(?:(?:likely|probably|most\s+likely|very|quite|totally|completely|entirely|perfectly|highly|"
    r"physically|clearly|definitely|certainly|fully|seems|looks)\s+)*)"
    r"(?P<adj>\b(?:" + _ADJ_NO + r"|" + _ADJ_YES + r")\b)"
    # "impossible to tell", "possible that ...": about knowing, not a verdict
    r"(?!\s+(?:for\s+(?:me|us|anyone|one|a\s+model)\s+)?to\s+(?:tell|say|determine|know|judge|answer|decide|see|"
    r"conclude|assess|be\s+sure)\b)"
    r"(?<!possible(?=\sthat\b))",
    re.IGNORECASE,
)
_VERB_MENTION = re.compile(
    r"(?P<neg>\b(?:does|did|do)\s*(?:not|n't)\s+|\bnever\s+)?(?P<verb>\b(?:" + _VERB_NO + r"|" + _VERB_YES + r")\b)",
    re.IGNORECASE,
)
#: hypotheticals and questions-about before a mention in its sentence: not a verdict
_HYPOTHETICAL = re.compile(
    r"\b(?:(?:would|should|could|might|may|must)(?:n't)?|whether|if|determine|decide|assess|judge|asked?|asking|question|"
    r"evaluate|unless|when|wonder)\b[^.!?\n,;:]*$",
    re.IGNORECASE,
)
_OPINION_NEG = re.compile(
    r"\b(?:(?:do|does|did)\s*(?:not|n't)|don't|doesn't|didn't|wouldn't|would\s+not|can't|cannot|can\s+not|"
    r"couldn't|hardly)\s+(?:\w+\s+){0,1}?(?:think|believe|say|call|consider|find|see\s+how|agree)\b[^.!?\n]*$|"
    r"\bnot\s+(?:convinced|persuaded)\b[^.!?\n]*$|\bno\s+(?:way|chance)\b[^.!?\n,;:]*$|"
    r"\bno\s+reason\s+to\s+(?:think|believe|say|call|consider)\b[^.!?\n]*$|"
    r"\b(?:nothing|none\s+of)\b(?:(?!\b(?:so|because|which|and|but|since)\b)[^,;.!?\n])*$",
    re.IGNORECASE,
)
#: an answer's label ("Answer:", "Verdict -"): two labelled verdicts that differ, with no revision between, are a
#: contradiction; and a revision: what it takes back is gone even when it puts nothing in its place
_LABEL = re.compile(
    r"(?:final\s+)?(?:answer|verdict|conclusion)|réponse|respuesta|antwort|答案|回答|结论", re.IGNORECASE
)
_REVISION = re.compile(
    r"wait|actually|on\s+second\s+thought|correction|on\s+reflection|hold\s+on|i\s+mean|edit|scratch\s+that|"
    r"never\s*mind|let\s+me|looking|on\s+(?:closer|second)|next\s+video|for\s+this\s+video|question",
    re.IGNORECASE,
)
#: the start of a new segment: a conclusion or a revision
_MARKER = re.compile(
    r"\b(?:final\s+answer|final\s+verdict|answer|verdict|conclusion|in\s+conclusion|in\s+summary|to\s+summari[sz]e|"
    r"overall|so|therefore|thus|hence|consequently|wait|actually|on\s+second\s+thought|correction|next\s+video|"
    r"for\s+this\s+video|question(?=\s*:)|"
    r"on\s+reflection|hold\s+on|i\s+mean|edit|scratch\s+that|never\s*mind|but|however|"
    r"let\s+me\s+(?:look|check|think|reconsider|re-?examine)|looking\s+(?:again|closer|more\s+closely)|"
    r"on\s+(?:closer|second)\s+(?:inspection|look)|"
    r"réponse|respuesta|antwort|答案|回答)\b|答案|回答|结论",
    re.IGNORECASE,
)
_THINK_OPEN = re.compile(r"<\s*think(?:ing)?\s*>", re.IGNORECASE)
_THINK_CLOSE = re.compile(r"<\s*/\s*think(?:ing)?\s*>", re.IGNORECASE)
#: "The statement is correct.", "This is not true.", "that's wrong"
_STATEMENT = re.compile(
    r"\b(?:that|this|it|the\s+statement|this\s+statement|the\s+claim)\s*(?:is|'s)\s+(?P<neg>not\s+)?"
    r"(?P<adj>true|correct|right|accurate|false|incorrect|wrong|inaccurate|untrue)\b",
    re.IGNORECASE,
)
_STATEMENT_NO = ("false", "incorrect", "wrong", "inaccurate", "untrue")
#: "nothing odd", "I don't see anything wrong": a yes; "others are not": the other half of a split verdict
_NOTHING_WRONG = re.compile(
    r"(?:\bnothing|\bnot\s+(?:see\s+)?anything|n't\s+(?:see\s+|notice\s+|find\s+)?anything)\s+(?:\w+\s+){0,2}?"
    r"(?:wrong|odd|strange|unusual|off|weird|amiss)\b|\bno\s+violations?\s+of\b",
    re.IGNORECASE,
)
_OTHERS_NOT = re.compile(r"\b(?:others?|the\s+rest)\s+(?:are|is)\s*(?:not|n't)\b", re.IGNORECASE)
_VIOLATION = re.compile(r"(?<!\bno\s)\b(?:an?\s+|clear\s+)?(?:violation|breach)\s+of\b", re.IGNORECASE)
#: a refusal, or a remark about seeing the video: no verdict on the question, whatever word opens it
_NOT_AN_ANSWER = re.compile(
    r"\b(?:cannot|can't|can\s+not|unable\s+to|not\s+able\s+to|don't\s+have\s+access)\s+(?:\w+\s+){0,2}?"
    r"(?:see|view|watch|access|process|analy[sz]e|open|play)\b|\bi\s+(?:can\s+)?(?:see|watched|have\s+watched|"
    r"viewed|have\s+seen)\s+the\s+(?:video|clip|frames)\b|\b(?:can|happy\s+to|glad\s+to|let\s+me)\s+help\b",
    re.IGNORECASE,
)
#: the simulation's quality, which the plausibility question asks to ignore
_OFF_QUESTION = re.compile(
    r"\b(?:simulation|rendering|render|graphics|image|video)\s+quality\b|\bquality\s+of\s+the\s+"
    r"(?:simulation|rendering|video|graphics)\b|\btextures?\b|\bblurr?y\b|\bpixelated\b|\brendering\b|"
    r"\bgraphics\b|\bvisuals?\b",
    re.IGNORECASE,
)
#: the one-shot example's turn echoed back, up to its instruction (its "Answer: yes" is the example's, not ours)
_ONE_SHOT_ECHO = re.compile(
    r"^.*?in\s+the\s+same\s+way\s+with\s+regards?\s+to\s+the\s+next\s+video[.!]?", re.IGNORECASE | re.DOTALL
)
_EXAMPLE_ECHO = re.compile(
    r"this\s+is\s+an\s+example\s+of\s+a\s+question\s+about\s+this\s+video\s+and\s+the\s+correct\s+answer\.?\s*"
    r"(?:question\s*:[^\n]*\n?)?(?:answer\s*:[^\n]*)?",
    re.IGNORECASE,
)
_FINAL_ANSWER = re.compile(r"\bfinal\s+(?:answer|verdict)\b", re.IGNORECASE)
_BOXED = re.compile(r"\\boxed\s*\{([^{}]*)\}")
_TAGS = re.compile(r"</?\s*[a-z_|]{1,16}\s*/?>|<\|[a-z_]{1,16}\|>", re.IGNORECASE)
_JSON_KEYS = ("answer", "verdict", "plausible", "final_answer", "response", "is_plausible", "is_true", "result")


def _normalise(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).translate(_QUOTES).replace("\ufe0f", "")
    text = re.sub(r"```\w*", "\n", text)
    text = re.sub(r"[\u200b\u200c\u200d\u2060\ufeff]", "", text)
    text = re.sub(r"~~[^~\n]*~~|<(del|s|strike)>.*?</\1>", " ", text, flags=re.IGNORECASE)  # struck out: taken back
    text = re.sub(r"(?m)^\s*[-*]?\s*\[\s\].*$", "", text)  # an unticked box is not chosen
    text = re.sub(r"\[[xX✓]\]", "\n", text)  # a ticked one is
    text = re.sub(r"[*_#>~]+", " ", text)  # markdown emphasis, headers, quotes
    text = re.sub(r"\b(ye)s{2,}\b|\b(n)o{2,}\b", lambda m: (m.group(1) + "s") if m.group(1) else "no", text, flags=re.I)
    text = re.sub(r"(?m)^\s*(?:[-+•·]|\d+[.)])\s+", "\n", text)  # list marks
    return text


def _json_verdict(text: str, plausibility: bool) -> tuple[bool, str | None]:
    """(is JSON, verdict) of an answer that is one JSON object."""
    s = text.strip()
    if not (s.startswith("{") and s.endswith("}")):
        return False, None
    try:
        obj = json.loads(s)
    except ValueError:
        return False, None
    if not isinstance(obj, dict):
        return False, None
    readings: set[str | None] = set()
    stack = [obj]
    while stack:
        for k, v in stack.pop().items():
            if isinstance(v, dict):
                stack.append(v)
            elif str(k).lower() in _JSON_KEYS:
                if isinstance(v, bool):
                    readings.add(YES if v else NO)
                elif isinstance(v, str):
                    readings.add(read_verdict(v, plausibility))
    readings.discard(None)
    return True, (readings.pop() if len(readings) == 1 else None)  # keys that disagree: no verdict


def _mentions(text: str, plausibility: bool) -> list[tuple[int, str]]:
    """(position, polarity) of every verdict mention outside questions."""
    found: list[tuple[int, str]] = []
    # sentence spans: questions are dropped
    for m in re.finditer(r"[^.!?\n]+[.!?]*", text):
        sent = m.group(0)
        if sent.rstrip().endswith("?"):
            continue
        base = m.start()
        if (plausibility and _OFF_QUESTION.search(sent)) or _NOT_AN_ANSWER.search(sent):
            continue  # a verdict on the rendering, which the question says to ignore, or a refusal
        for st in _STATEMENT.finditer(sent):
            negative = st.group("adj").lower() in _STATEMENT_NO
            found.append((base + st.start(), NO if negative != bool(st.group("neg")) else YES))
        words = [
            (w.start(g), w.end(g), w.group(g).lower())
            for w in _ANSWER_WORD.finditer(sent)
            for g in (1, 2)
            if w.group(g)
        ]
        words += [(w.start(1), w.end(1), w.group(1).lower()) for w in _MARKED_WORD.finditer(sent)]
        for start, end, word in sorted(set(words)):
            if (word == "no" and _IDIOM_AFTER_NO.match(sent, end)) or (
                word == "yes" and _IDIOM_AFTER_YES.match(sent, end)
            ):
                continue
            found.append((base + start, NO if word in _NO_WORDS or word in _ALONE_NO else YES))
        for t in _THINK_SO.finditer(sent):
            found.append((base + t.start(), NO if t.group(1) else YES))
        if not plausibility:
            continue
        found += [(base + n.start(), YES) for n in _NOTHING_WRONG.finditer(sent)]
        found += [(base + n.start(), NO) for n in _OTHERS_NOT.finditer(sent)]
        found += [
            (base + n.start(), NO) for n in _VIOLATION.finditer(sent) if not _HYPOTHETICAL.search(sent[: n.start()])
        ]
        for a in _ADJ_MENTION.finditer(sent):
            before = sent[: a.start("adj") if a.group("cop") is None else a.start("cop")]
            opinion = bool(_OPINION_NEG.search(before))  # "I wouldn't say it's plausible": a verdict
            if _HYPOTHETICAL.search(before) and not opinion:
                continue
            if a.group("cop") is None and a.group("neg2") is None and a.group("lead") is None and not opinion:
                # an attributive adjective ("a plausible outcome") is no verdict
                continue
            negative = bool(re.match(_ADJ_NO, a.group("adj"), re.IGNORECASE))
            negated = (bool(a.group("neg0")) + bool(a.group("neg1")) + bool(a.group("neg2"))) % 2 == 1
            if opinion:
                negated = not negated
            found.append((base + a.start("adj"), NO if negative != negated else YES))
        for v in _VERB_MENTION.finditer(sent):
            if _HYPOTHETICAL.search(sent[: v.start()]):
                continue
            negative = bool(re.match(_VERB_NO, v.group("verb"), re.IGNORECASE))
            negated = bool(v.group("neg")) != bool(_OPINION_NEG.search(sent[: v.start()]))
            found.append((base + v.start("verb"), NO if negative != negated else YES))
    return sorted(found)


def _read(text: str, plausibility: bool) -> tuple[str | None, bool]:
    """(verdict, whether any verdict was mentioned) of text without reasoning blocks (rules 1-3)."""
    is_json, verdict = _json_verdict(re.sub(r"```(?:json)?", "", text), plausibility)
    if is_json:
        return verdict, verdict is not None
    text = _OPTIONS.sub(" ", _normalise(text))
    mentions = _mentions(text, plausibility)
    markers = [(m.start(), m.group(0)) for m in _MARKER.finditer(text)]
    segments = []  # (marker word or "", the verdicts mentioned in the segment)
    for (lo, word), hi in zip([(0, ""), *markers], [m for m, _ in markers] + [len(text) + 1]):
        segments.append((word, {pol for pos, pol in mentions if lo <= pos < hi}))
    for i in range(len(segments) - 1, -1, -1):
        word, inside = segments[i]
        if not inside:
            if word and _REVISION.match(word):
                return None, bool(mentions)  # a verdict taken back with none in its place
            continue
        if len(inside) > 1:
            return None, True
        verdict = next(iter(inside))
        if _LABEL.fullmatch(word):
            for earlier, seen in reversed(segments[:i]):
                if _REVISION.match(earlier):
                    break
                if _LABEL.fullmatch(earlier) and seen and seen != inside:
                    return None, True  # "Verdict: implausible. Answer: Yes."
        return verdict, True
    return None, False


def read_verdict(response: str | None, plausibility: bool = False) -> str | None:
    """ "yes", "no", or None when a careful reader could not take a verdict from `response` (rules: module doc).

    `plausibility` also reads verdict adjectives and verbs ("implausible", "violates physics") as answers to
    "is ... plausible?"."""
    text = _EXAMPLE_ECHO.sub("\n", _ONE_SHOT_ECHO.sub("\n", str(response or "")))
    closes = list(_THINK_CLOSE.finditer(text))
    opens = list(_THINK_OPEN.finditer(text))
    if not closes and opens:
        final = list(_FINAL_ANSWER.finditer(text))
        if not final:
            return None  # reasoning that never reached its answer
        text = text[final[-1].start() :]
    thought = ""
    if closes:
        close = closes[-1]
        start = max((o.end() for o in opens if o.end() <= close.start()), default=0)
        thought, text = text[start : close.start()], text[close.end() :]
    text = _TAGS.sub("\n", _BOXED.sub(r"\n\1\n", text))
    verdict, mentioned = _read(text, plausibility)
    if not mentioned and thought:
        verdict, _ = _read(thought, plausibility)  # an answer given only inside the reasoning block
    return verdict
