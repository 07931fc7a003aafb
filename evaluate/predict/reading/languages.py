"""Answers written in French or Chinese, said in the English the reader reads: the scene's objects ("le cube rouge",
"红色立方体" -> "the red cube") and the few verbs of a prediction (hit / collide / not hit / stay unscathed / no
collision). Anything else is left as written, so an answer in another language with no such words stays
unreadable rather than guessed."""

from __future__ import annotations

import re

_FR_COLOURS = {
    "rouge": "red", "vert": "green", "verte": "green", "bleu": "blue", "bleue": "blue", "jaune": "yellow",
    "violet": "purple", "violette": "purple", "blanc": "white", "blanche": "white",
}  # fmt: skip
_FR_SHAPES = {
    "cube": "cube", "bloc": "cube", "sphère": "sphere", "sphere": "sphere", "boule": "sphere", "balle": "sphere",
    "bille": "sphere", "cylindre": "cylinder",
}  # fmt: skip
_FR_OBJECT = re.compile(
    r"\b(?:(?:le|la|les)\s+|l')?(" + "|".join(_FR_SHAPES) + r")s?\s+(" + "|".join(_FR_COLOURS) + r")s?\b"
)
_FR_HIT = r"(?:percuter|heurter|frapper|toucher|cogner|entrer\s+en\s+collision\s+avec)"
_FR_HIT_FUTURE = r"(?:percutera|heurtera|frappera|touchera|cognera|entrera\s+en\s+collision\s+avec)"
_FR = [
    (re.compile(r"\bne\s+va\s+pas\s+" + _FR_HIT + r"\b"), "will not hit"),
    (re.compile(r"\bne\s+" + _FR_HIT_FUTURE + r"\s+pas\b"), "will not hit"),
    (re.compile(r"\bva\s+" + _FR_HIT + r"\b"), "will hit"),
    (re.compile(r"\b" + _FR_HIT_FUTURE + r"\b"), "will hit"),
    (
        re.compile(r"\b(?:restera|resteront|demeurera)\s+(?:intact|intacte|intacts|indemne|indemnes)\b"),
        "will remain unscathed",
    ),
    (re.compile(r"\baucune\s+collision\b"), "no collisions"),
]
_ZH_COLOURS = {"红": "red", "绿": "green", "蓝": "blue", "黄": "yellow", "紫": "purple", "白": "white"}
_ZH_SHAPES = {
    "立方体": "cube", "正方体": "cube", "方块": "cube", "球体": "sphere", "圆柱体": "cylinder", "圆柱": "cylinder",
    "球": "sphere",
}  # fmt: skip
_ZH_OBJECT = re.compile("([" + "".join(_ZH_COLOURS) + "])色?的?(" + "|".join(_ZH_SHAPES) + ")")
_ZH = [
    (re.compile(r"(?:将|会)?(?:不会|不)(?:受到碰撞|被撞|被碰撞|被击中)"), " will not be hit "),
    (re.compile(r"(?:将|会)?与\s*(the [a-z]+ [a-z]+)\s*(?:相撞|碰撞|发生碰撞|相碰)"), r" will collide with \1 "),
    (re.compile(r"(?:将|会)?(?:撞上|撞到|撞击|撞向)"), " will hit "),
    (re.compile(r"(?:不会发生碰撞|没有碰撞|无碰撞)"), " no collisions "),
]


def to_english(t: str) -> str:
    """Lower-cased answer text with its French or Chinese objects and prediction verbs in English."""
    if re.search(r"[\u4e00-\u9fff]", t):
        t = _ZH_OBJECT.sub(lambda m: f" the {_ZH_COLOURS[m.group(1)]} {_ZH_SHAPES[m.group(2)]} ", t)
        for rx, sub in _ZH:
            t = rx.sub(sub, t)
        t = re.sub(r"[ \t]+", " ", t)
    if _FR_OBJECT.search(t):
        t = _FR_OBJECT.sub(lambda m: f"the {_FR_COLOURS[m.group(2)]} {_FR_SHAPES[m.group(1)]}", t)
        for rx, sub in _FR:
            t = rx.sub(sub, t)
    return t
