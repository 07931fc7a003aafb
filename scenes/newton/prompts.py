"""The wording of the `newton` suite's questions (NEWTON's Track 2 and Track 3 templates): data, outside the code
fingerprint.

A reworded question changes no video, so this module is not part of any scene's fingerprint
(`generator/fingerprint.py`); its values are hashed into the set's prompts version instead (`identity.prompts`
in dataset.json), and `voebench render --upgrade` rewrites an existing set's question texts in this wording
without re-rendering anything. Every value here is plain data; `question_text` in the suite's `__init__` fills
the templates. The objects' names ("the red ball") are the answers and stay with the scenes (world.py).
"""

from __future__ import annotations

#: Track 2 multiple choice: `{extreme}` is "most" or "least", `{options}` the objects left to right.
CHOICE = "Which object is the {extreme} {adjective}? Options: {options}."
#: Track 2 Boolean comparison of the leftmost object `{a}` (capitalised) with the rightmost `{b}`; `{word}` is
#: "more" or "less".
COMPARISON = "True/False: {a} is {word} {adjective} than {b}."
#: Track 3: each test's scenario and its question, joined by a space (`{objects}`: the options).
SCENARIO = {
    "elasticity": (
        "I want a ball for a game where it has to bounce back up as high as possible after hitting the floor.",
        "Which of {objects} should I choose?",
    ),
    "smoothness": (
        "I am building a toy slide and want a block that slides down it as easily as possible.",
        "Which of {objects} should I use?",
    ),
    "heaviness": (
        "I need something to hold a stack of papers down on a windy day.",
        "Which of {objects} should I use?",
    ),
}
#: How the questions name each test's attribute.
ADJECTIVE = {"elasticity": "elastic", "smoothness": "smooth on the surface", "heaviness": "heavy"}
