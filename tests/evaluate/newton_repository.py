"""A small repository in NEWTON's published format, written by the tests (the project ships no NEWTON data)."""

from __future__ import annotations

import csv

QUESTIONS = {
    "elasticity": (
        "If you were to deform <MASK> (by squeezing, hitting, etc.) can it recover to its original form?",
        (
            "No: Object will not be able to return to its original form.",
            "Somewhat: Object may recover.",
            "Yes: Object recovers near perfectly.",
        ),
    ),
    "brittleness": (
        "How easy is it for <MASK> to break (shatter, crack) when a sudden impact force is applied?",
        (
            "Low: object can withstand most impact forces.",
            "Moderate: object can withstand minor impact forces.",
            "High: object shatters easily with impact force.",
        ),
    ),
    "stiffness": (
        "What is the amount of continued weight that <MASK> can withstand before deforming or cracking?",
        ("Low: minimal weight.", "Moderate: a small amount of weight.", "High: more than a 10 kg weight."),
    ),
    "sharpness": (
        "What is sharpness of <MASK>?",
        ("Low: no sharp corners or edges.", "Moderate: may have sharp edges.", "High: designed to pierce."),
    ),
    "softness": (
        "What is the softness (fluffiness, squishiness) of <MASK>?",
        ("Low: object is hard.", "Moderate: some parts are soft.", "High: the majority of the object is soft."),
    ),
}

# attribute -> object -> (majority answer, agreement)
VALUES = {
    "elasticity": {
        "rubber_ball": (3, 1.0),
        "tennis_ball": (3, 0.75),
        "sponge": (3, 1.0),
        "pillow": (3, 0.8),
        "spring": (3, 1.0),
        "glass_vase": (1, 1.0),
        "wine_glass": (1, 0.75),
        "ceramic_plate": (1, 1.0),
        "brick": (1, 1.0),
        "egg": (1, 0.8),
        "knife": (1, 1.0),
        "steel_hammer": (1, 1.0),
        "wooden_board": (2, 1.0),  # middle answer: dropped
        "scissors": (1, 0.5),  # low agreement: dropped
    },
    "brittleness": {
        "glass_vase": (3, 1.0),
        "wine_glass": (3, 1.0),
        "ceramic_plate": (3, 0.75),
        "egg": (3, 1.0),
        "rubber_ball": (1, 1.0),
        "tennis_ball": (1, 1.0),
        "sponge": (1, 0.8),
        "pillow": (1, 1.0),
        "steel_hammer": (1, 1.0),
        "brick": (1, 0.75),
        "spring": (1, 1.0),
        "knife": (1, 1.0),
        "chocolate_cake": (2, 0.5),  # dropped twice over
    },
    "stiffness": {
        "brick": (3, 1.0),
        "steel_hammer": (3, 1.0),
        "wooden_board": (3, 0.8),
        "knife": (3, 0.75),
        "sponge": (1, 1.0),
        "pillow": (1, 1.0),
        "rubber_ball": (1, 0.75),
        "feather": (1, 1.0),
    },
    "sharpness": {
        "knife": (3, 1.0),
        "scissors": (3, 1.0),
        "pillow": (1, 1.0),
        "sponge": (1, 1.0),
        "rubber_ball": (1, 1.0),
        "tennis_ball": (1, 0.8),
        "egg": (1, 1.0),
        "brick": (1, 0.75),
        "cake": (1, 1.0),
    },
    "softness": {
        "pillow": (3, 1.0),
        "sponge": (3, 1.0),
        "feather": (3, 0.8),
        "cake": (3, 0.75),
        "brick": (1, 1.0),
        "steel_hammer": (1, 1.0),
        "knife": (1, 1.0),
        "glass_vase": (1, 1.0),
        "ceramic_plate": (1, 0.8),
    },
}


def rows() -> list[dict]:
    out = []
    for attribute, objects in VALUES.items():
        question, options = QUESTIONS[attribute]
        for obj, (majority, agreement) in objects.items():
            out.append(
                {
                    "attribute": attribute.capitalize(),
                    "category": obj,
                    "type": "object",
                    "question": question,
                    "option_1": options[0],
                    "option_2": options[1],
                    "option_3": options[2],
                    "result_majority": majority,
                    "agreement": agreement,
                }
            )
    return out


def write(path, extra_rows: list[dict] | None = None) -> str:
    data = rows() + list(extra_rows or [])
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.DictWriter(fh, fieldnames=list(data[0]))
        w.writeheader()
        w.writerows(data)
    return str(path)


def kept_count() -> int:
    return sum(1 for objs in VALUES.values() for m, a in objs.values() if a >= 0.75 and m in (1, 3))
