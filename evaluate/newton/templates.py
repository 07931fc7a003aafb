"""The wording of every NEWTON question: Track 1 (the annotators' three-option questions), Track 2 (Boolean and
multiple-choice templates about a named attribute), Track 3 (scenarios whose attributes are implied), each in three
prompt variants.

`v1` is the paper's template (Table 1) word for word. The paper tests three wordings and their majority vote
(Table 8) without printing them; `v2` and `v3` are ours: the same question asked with an answer instruction
(`v2`) and in a Question/Answer layout (`v3`), so the ensemble votes over wordings, not over content.
"""

from __future__ import annotations

from dataclasses import dataclass

VARIANTS = ("v1", "v2", "v3")

#: How a Track 2 statement names each paper attribute ("X is <adjective>", "the most <adjective>"); the
#: surface attributes follow the paper's own example ("Which object is the most hard on the surface?").
ADJECTIVES = {
    "elasticity": "elastic",
    "stiffness": "stiff",
    "surface smoothness": "smooth on the surface",
    "surface hardness": "hard on the surface",
    "softness": "soft",
    "brittleness": "brittle",
    "malleability": "malleable",
    "sharpness": "sharp",
    # attributes of the rendered `newton` suite
    "heaviness": "heavy",
}

LETTERS = "abcdefgh"


def option_label(option: str) -> str:
    """The short answer an option stands for: the words before its colon ("No: Object will not ..." -> "No")."""
    head = option.split(":", 1)[0].strip()
    return head or option.strip()


# ---------------------------------------------------------------------------------------------------------- Track 1


def track1(question: str, object_name: str, options: tuple[str, ...], variant: str) -> str:
    q = question.replace("<MASK>", object_name)
    listed = "\n".join(f"{LETTERS[k]}) {o}" for k, o in enumerate(options))
    letters = ", ".join(LETTERS[: len(options) - 1]) + f" or {LETTERS[len(options) - 1]}"
    if variant == "v1":
        return f"{q}\n{listed}"
    if variant == "v2":
        return f"{q}\n{listed}\nAnswer with {letters}."
    return f"Question: {q}\nOptions:\n{listed}\nAnswer with the letter of the best option:"


# ---------------------------------------------------------------------------------------------------------- Track 2

#: Track 2 question types: a statement about one object, a comparison of two, the most/least of several.
TRACK2_TYPES = ("boolean", "comparison", "multiple_choice")
STREAM = {"boolean": "boolean", "comparison": "boolean", "multiple_choice": "multiple_choice"}


def statement(qtype: str, positive: bool, adjective: str, objects: list[str]) -> str:
    """The Boolean statement (without "True/False:"): "X is A." / "X is not A." / "X is more (less) A than Y."."""
    if qtype == "boolean":
        return f"{objects[0]} is {'' if positive else 'not '}{adjective}."
    return f"{objects[0]} is {'more' if positive else 'less'} {adjective} than {objects[1]}."


def track2(qtype: str, positive: bool, adjective: str, objects: list[str], variant: str) -> str:
    if qtype in ("boolean", "comparison"):
        s = statement(qtype, positive, adjective, objects)
        s = s[0].upper() + s[1:]
        if variant == "v1":
            return f"True/False: {s}"
        if variant == "v2":
            return f"Is this statement true or false? {s} Answer True or False."
        return f"Statement: {s}\nQuestion: is the statement true or false?\nAnswer:"
    most = "most" if positive else "least"
    listed = ", ".join(objects)
    if variant == "v1":
        return f"Which object is the {most} {adjective}? Options: {listed}."
    if variant == "v2":
        return f"Of {_and(objects)}, which object is the {most} {adjective}? Answer with the object's name."
    return f"Options: {listed}.\nQuestion: which of these objects is the {most} {adjective}?\nAnswer:"


def _and(items: list[str]) -> str:
    return ", ".join(items[:-1]) + f" and {items[-1]}" if len(items) > 1 else items[0]


# ---------------------------------------------------------------------------------------------------------- Track 3


@dataclass(frozen=True)
class Scenario:
    """A Track 3 template: the attributes (name -> "high" | "low") the right object has, a context that implies
    them, and a question with the objects' slot."""

    number: int
    attributes: tuple[tuple[str, str], ...]
    context: str
    question: str  # "{objects}" is replaced by "A, B, C, D"


#: The paper's nine scenarios (Table 1).
SCENARIOS = (
    Scenario(
        1,
        (("stiffness", "high"), ("brittleness", "low")),
        "I am packing a backpack.",
        "Which of {objects} should I put at the bottom?",
    ),
    Scenario(
        2,
        (("malleability", "high"), ("elasticity", "high")),
        "I have an irregularly shaped space in my suitcase, and four objects with the same volume.",
        "Which of {objects} could fit in that space?",
    ),
    Scenario(
        3,
        (("surface hardness", "high"), ("surface smoothness", "low")),
        "I need an object to place sandpaper above.",
        "Which of {objects} is the most suitable?",
    ),
    Scenario(
        4,
        (("sharpness", "high"),),
        "I am trying to open some plastic packaging.",
        "Which of {objects} can help me open?",
    ),
    Scenario(
        5,
        (("softness", "high"), ("elasticity", "high")),
        "I am wrapping fragile gifts and want to protect them from impact.",
        "Which of {objects} should I choose for cushioning?",
    ),
    Scenario(
        6,
        (("surface hardness", "high"), ("brittleness", "low"), ("stiffness", "high")),
        "I need to hammer a nail into a solid wooden board.",
        "Which of {objects} should I choose?",
    ),
    Scenario(
        7,
        (("sharpness", "high"),),
        "I need to prepare a work table as a play area for kids.",
        "Which of {objects} should I remove?",
    ),
    # The paper lists "Brittleness (low), Elasticity (high)": the objects the robot may keep. The question asks
    # which to remove, so the right answer is the opposite (docs/newton.md, differences).
    Scenario(
        8,
        (("brittleness", "high"), ("elasticity", "low")),
        "I have a robot which sorts objects by tossing them to bins.",
        "Which of {objects} should I remove?",
    ),
    Scenario(
        9,
        (("softness", "high"), ("elasticity", "high")),
        "I need an object to provide insulation from a sharp edge on a piece of furniture.",
        "Which of {objects} should I choose?",
    ),
)


def track3(scenario: Scenario, objects: list[str], variant: str) -> str:
    q = scenario.question.format(objects=", ".join(objects))
    if variant == "v1":
        return f"{scenario.context} {q}"
    if variant == "v2":
        return f"{scenario.context} {q} Answer with the object's name."
    return f"Context: {scenario.context}\nQuestion: {q}\nAnswer:"
