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

Modules, each one concern: `vocabulary` (the words and patterns), `parsed` (the result), `layout` (normalising,
the strict COLLISIONS line, final answers, JSON and tables), `objects` (object mentions), `clauses` (sentences,
list items, clauses), `reader` (reading clauses into pairs and a status), `scores` (scoring against the truth),
`letters` (event option letters). Standard library only, relative imports: the lmms-eval export copies this
folder into the task folder as the package `predict_exact`. `voebench.evaluate.predict.exact` re-exports it.
"""

from __future__ import annotations

from .layout import final_part, json_text, normalize, read_structured, table_text
from .letters import choice_letter, score_choice
from .parsed import STATUSES, Parsed
from .reader import parse, read_clause
from .scores import Score, aggregate, score

__all__ = [
    "STATUSES",
    "Parsed",
    "Score",
    "aggregate",
    "choice_letter",
    "final_part",
    "json_text",
    "normalize",
    "parse",
    "read_clause",
    "read_structured",
    "score",
    "score_choice",
    "table_text",
]
