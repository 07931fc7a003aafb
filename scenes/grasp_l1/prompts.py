"""The wording of GRASP Level 1's prompts (supplementary 1.1 and 1.2): data, outside the code fingerprint.

A reworded prompt changes no video, so this module is not part of any scene's fingerprint
(`generator/fingerprint.py`); its values are hashed into the set's prompts version instead (`identity.prompts`
in dataset.json), and `voebench render --upgrade` rewrites an existing set's question texts in this wording
without re-rendering anything. Every value here is plain data; `GraspLevel1.question_text` composes the texts.
The observations that fill a statement are the videos' labels and stay with their scenes, as do the words that
count as each open answer (`KEYWORDS`, the manifest's `choices`).
"""

from __future__ import annotations

#: Appended to every binary statement.
YES_NO = " Is this true? Answer only with yes or no."

#: Each test's binary statement, `{}` filled with an observation (true: answer yes; false: answer no).
STATEMENT = {
    "shape": "A {} is on the table.",
    "color": "The ball on the table is {}.",
    "directionality": "The ball is rolling {}.",
    "movement": "The ball is {}.",
    "ordering": "From left to right, the following objects are on the table: {}.",
    "relational": "The ball is on the {} side of the black barrier.",
}

#: Each test's open question; GRASP has none for Movement and Ordering.
OPEN_QUESTION = {
    "shape": "What shape is the object on the table?",
    "color": "What color is the object on the table?",
    "directionality": "Which direction is the ball rolling?",
    "relational": "Which side of the black barrier is the ball on?",
}
