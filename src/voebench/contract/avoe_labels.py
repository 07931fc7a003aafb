"""The AVoE label vocabulary as data: features, prior rules and posterior rules, and which apply per category.

Part of the data contract (the scenes write these labels, the baseline reads them), so it lives below both.

Pure Python (no numpy, no torch), so the generator can import it to write labels and the baseline can import it
to encode them. Sources: AVoE supplementary Tables 5-7 and Section 4; the original code (`docs/scene-facts.md`
Parts 7-8).

Five event categories ``A`` .. ``E`` (support, occlusion, containment, collision, barrier).

**Features.** Table 5 lists 20 features (``TABLE_FEATURES``). The model sees 24 (``MODEL_FEATURES``): each of the
four velocities (signed, + = moving right in the image) is split into a non-negative speed (regression) and a
direction class (``left`` / ``right``), as in the paper. A feature that does not apply to a video's category is
*irrelevant*: scalar features then hold ``-1.0`` (``IRRELEVANT_SCALAR``) and class features the class
``"irrelevant"`` (``IRRELEVANT``). Every relevant scalar is >= 0, so it can never clash with -1.

**Rules.** 13 prior rules (``PRIOR_RULES``, Table 6) and 9 posterior rules (``POSTERIOR_RULES``, Table 7). A rule is
``True`` / ``False`` where it applies to the category and ``"irrelevant"`` otherwise. Posterior rules describe the
*observed* outcome of the video (so a surprising video holds the surprising outcome); prior rules describe the
stimulus. Values follow the rule's name (the original code stored two of them inverted: prior 4 and posterior 1;
do not copy that).

**What the generator writes** (manifest ``labels`` and HDF5 ``labels`` attributes)::

    from voebench.contract.avoe_labels import make_labels
    labels = make_labels("A",
        features={"object_height": 1.2, "object_width": 0.8, "contact_point": 0.3, "object_shape": "cube"},
        prior_rules={"object_majority_contact": True, "object_majority_volume": True},
        posterior_rules={"support_holds_object": True})
    # -> {"features": {24 names}, "prior_rules": {13 names}, "posterior_rules": {9 names}}, irrelevant filled in

Velocities may be given signed under their Table-5 name (``left_prior_velocity=1.5``) or already split
(``left_prior_speed=1.5, left_prior_direction="right"``).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from collections.abc import Mapping
from typing import Any

# --------------------------------------------------------------------------------------------------------------
# Categories and the irrelevant encoding

CATEGORIES: tuple[str, ...] = ("A", "B", "C", "D", "E")
CATEGORY_NAMES: dict[str, str] = {
    "A": "support",
    "B": "occlusion",
    "C": "containment",
    "D": "collision",
    "E": "barrier",
}

IRRELEVANT = "irrelevant"
IRRELEVANT_SCALAR = -1.0

# Class vocabularies; the index of a value in its tuple is its class id, and "irrelevant" is always last.
# Shape order as in the original code (Cube 0, Sphere 1, Torus 2, Cylinder 3, Side_Cylinder 4, Cone 5,
# Inverted_Cone 6, irrelevant 7).
SHAPES: tuple[str, ...] = ("cube", "sphere", "torus", "cylinder", "side_cylinder", "cone", "inverted_cone")
CONTAINER_SHAPES: tuple[str, ...] = ("box", "mug")
DIRECTIONS: tuple[str, ...] = ("left", "right")  # original: negative velocity -> 0, non-negative -> 1
BOOLEANS: tuple[bool, ...] = (False, True)
RULE_VALUES: tuple[Any, ...] = (False, True, IRRELEVANT)


def category_of(test: str) -> str:
    """The event category of an AVoE test name (``"A"``, ``"A1"``, ``"support"``, ``"A_support"``, ...)."""
    t = str(test).strip()
    if t and t[0].upper() in CATEGORIES and (len(t) == 1 or not t[1].isalpha() or t[1] in "_-"):
        return t[0].upper()
    for letter, name in CATEGORY_NAMES.items():
        if t.lower() == name:
            return letter
    raise ValueError(f"not an AVoE category or test name: {test!r}")


# --------------------------------------------------------------------------------------------------------------
# Table 5: the 20 features


@dataclass(frozen=True)
class TableFeature:
    """One of the 20 features of supplementary Table 5."""

    number: int  # row in Table 5 (1-based)
    name: str  # JSON key (the original code's key)
    title: str  # Table 5 wording
    kind: str  # "scalar", "velocity" (signed scalar), "boolean" or "class"
    categories: tuple[str, ...]  # categories where it is causally relevant
    classes: tuple[Any, ...] = ()  # for kind "class"

    def relevant_to(self, category: str) -> bool:
        return category in self.categories


TABLE_FEATURES: tuple[TableFeature, ...] = (
    TableFeature(1, "object_height", "Object Height", "scalar", ("A", "B", "C", "E")),
    TableFeature(2, "object_width", "Object Width", "scalar", ("A", "B", "C", "E")),
    TableFeature(3, "left_size", "Left Size", "scalar", ("D",)),
    TableFeature(4, "right_size", "Right Size", "scalar", ("D",)),
    TableFeature(5, "left_prior_velocity", "Left Prior Velocity", "velocity", ("D",)),
    TableFeature(6, "right_prior_velocity", "Right Prior Velocity", "velocity", ("D",)),
    TableFeature(7, "left_posterior_velocity", "Left Posterior Velocity", "velocity", ("D",)),
    TableFeature(8, "right_posterior_velocity", "Right Posterior Velocity", "velocity", ("D",)),
    TableFeature(9, "container_height", "Container Height", "scalar", ("C",)),
    TableFeature(10, "container_width", "Container Width", "scalar", ("C",)),
    TableFeature(11, "wall_opening", "Wall Opening", "boolean", ("E",)),
    TableFeature(12, "wall_soft", "Wall Softness", "boolean", ("E",)),
    TableFeature(13, "opening_width", "Opening Width", "scalar", ("E",)),
    TableFeature(14, "opening_height", "Opening Height", "scalar", ("E",)),
    TableFeature(15, "contact_point", "Contact Height", "scalar", ("A",)),
    TableFeature(16, "middle_segment_height", "Occluder Middle Height", "scalar", ("B",)),
    TableFeature(17, "object_shape", "Object Shape", "class", ("A", "B", "C", "E"), SHAPES),
    TableFeature(18, "left_shape", "Left Shape", "class", ("D",), SHAPES),
    TableFeature(19, "right_shape", "Right Shape", "class", ("D",), SHAPES),
    TableFeature(20, "container_shape", "Container Shape", "class", ("C",), CONTAINER_SHAPES),
)
TABLE_FEATURE_BY_NAME: dict[str, TableFeature] = {f.name: f for f in TABLE_FEATURES}


# --------------------------------------------------------------------------------------------------------------
# The 24 model features (one network head each)


@dataclass(frozen=True)
class ModelFeature:
    """One of the 24 features the object-file stage predicts, with its encoding.

    ``head`` is ``"regression"`` (a scalar >= 0, or -1 when irrelevant) or ``"classification"`` (``classes`` plus
    a final ``"irrelevant"`` class)."""

    index: int  # position in MODEL_FEATURES / in the model's head list
    name: str
    head: str  # "regression" or "classification"
    source: str  # the Table-5 feature it comes from
    categories: tuple[str, ...]
    classes: tuple[Any, ...] = ()  # classification only, without "irrelevant"

    @property
    def n_classes(self) -> int:
        """Number of classes including ``irrelevant`` (0 for regression)."""
        return len(self.classes) + 1 if self.head == "classification" else 0

    @property
    def irrelevant_value(self) -> Any:
        return IRRELEVANT_SCALAR if self.head == "regression" else IRRELEVANT

    def relevant_to(self, category: str) -> bool:
        return category in self.categories

    def encode(self, value: Any) -> float:
        """The number a model/decision tree sees: the scalar itself (-1 if irrelevant) or the class index."""
        if self.head == "regression":
            if value is None or value == IRRELEVANT:
                return IRRELEVANT_SCALAR
            return float(value)
        return float(class_index(self.classes, value))

    def decode(self, number: float) -> Any:
        """Inverse of :meth:`encode` (regression values below -0.5 read as irrelevant)."""
        if self.head == "regression":
            return IRRELEVANT_SCALAR if number < -0.5 else float(number)
        i = int(round(number))
        return IRRELEVANT if i >= len(self.classes) or i < 0 else self.classes[i]


def _model_features() -> tuple[ModelFeature, ...]:
    out: list[ModelFeature] = []
    for f in TABLE_FEATURES:
        if f.kind == "velocity":
            stem = f.name[: -len("_velocity")]
            out.append(ModelFeature(len(out), f"{stem}_speed", "regression", f.name, f.categories))
            out.append(ModelFeature(len(out), f"{stem}_direction", "classification", f.name, f.categories, DIRECTIONS))
        elif f.kind == "scalar":
            out.append(ModelFeature(len(out), f.name, "regression", f.name, f.categories))
        elif f.kind == "boolean":
            out.append(ModelFeature(len(out), f.name, "classification", f.name, f.categories, BOOLEANS))
        else:
            out.append(ModelFeature(len(out), f.name, "classification", f.name, f.categories, f.classes))
    return tuple(out)


MODEL_FEATURES: tuple[ModelFeature, ...] = _model_features()
MODEL_FEATURE_BY_NAME: dict[str, ModelFeature] = {f.name: f for f in MODEL_FEATURES}
MODEL_FEATURE_NAMES: tuple[str, ...] = tuple(f.name for f in MODEL_FEATURES)
assert len(MODEL_FEATURES) == 24


# --------------------------------------------------------------------------------------------------------------
# Tables 6 and 7: rules


@dataclass(frozen=True)
class Rule:
    """A prior (Table 6) or posterior (Table 7) rule: ``True``/``False`` where it applies, else irrelevant."""

    number: int  # row in its table (1-based)
    name: str
    question: str  # the table's wording
    categories: tuple[str, ...]
    kind: str  # "prior" or "posterior"

    values = RULE_VALUES  # class index = position: False 0, True 1, irrelevant 2

    @property
    def n_classes(self) -> int:
        return len(RULE_VALUES)

    def relevant_to(self, category: str) -> bool:
        return category in self.categories

    def encode(self, value: Any) -> int:
        return class_index(BOOLEANS, value)

    def decode(self, number: float) -> Any:
        i = int(round(number))
        return RULE_VALUES[i] if 0 <= i < len(RULE_VALUES) else IRRELEVANT


PRIOR_RULES: tuple[Rule, ...] = (
    Rule(1, "object_majority_contact", "does object have majority contact proportion?", ("A",), "prior"),
    Rule(2, "object_majority_volume", "does object have majority volume proportion?", ("A",), "prior"),
    Rule(3, "object_taller_than_middle", "is object taller than middle?", ("B",), "prior"),
    Rule(4, "object_taller_than_container", "is object taller than container?", ("C",), "prior"),
    Rule(5, "object_thinner_than_container", "is object thinner than container?", ("C",), "prior"),
    Rule(6, "right_object_larger", "is right object larger?", ("D",), "prior"),
    Rule(7, "objects_same_size", "are both objects same size?", ("D",), "prior"),
    Rule(8, "right_object_faster", "is right object faster?", ("D",), "prior"),
    Rule(9, "objects_same_speed", "are both objects same speed?", ("D",), "prior"),
    Rule(10, "wall_has_opening", "is there an opening?", ("E",), "prior"),
    Rule(11, "blocker_soft", "is the blocker soft?", ("E",), "prior"),
    Rule(12, "object_thinner_than_opening", "is the object thinner than the opening?", ("E",), "prior"),
    Rule(13, "object_shorter_than_opening", "is the object shorter than the opening?", ("E",), "prior"),
)
POSTERIOR_RULES: tuple[Rule, ...] = (
    Rule(1, "support_holds_object", "does support hold object?", ("A",), "posterior"),
    Rule(2, "object_seen_in_middle", "see object in middle?", ("B",), "posterior"),
    Rule(3, "object_fit", "did the object fit?", ("C",), "posterior"),
    Rule(4, "object_protruded", "did the object protrude?", ("C",), "posterior"),
    Rule(5, "right_object_changed_direction", "did right object change direction?", ("D",), "posterior"),
    Rule(6, "left_object_changed_direction", "did left object change direction?", ("D",), "posterior"),
    Rule(7, "right_object_sped_up", "did right object increase speed magnitude?", ("D",), "posterior"),
    Rule(8, "left_object_sped_up", "did left object increase speed magnitude?", ("D",), "posterior"),
    Rule(9, "object_passed_through_wall", "did the object pass through the wall?", ("E",), "posterior"),
)
PRIOR_RULE_NAMES: tuple[str, ...] = tuple(r.name for r in PRIOR_RULES)
POSTERIOR_RULE_NAMES: tuple[str, ...] = tuple(r.name for r in POSTERIOR_RULES)
RULE_BY_NAME: dict[str, Rule] = {r.name: r for r in PRIOR_RULES + POSTERIOR_RULES}


# --------------------------------------------------------------------------------------------------------------
# What applies per category


def _per_category(items) -> dict[str, tuple[str, ...]]:
    return {c: tuple(i.name for i in items if c in i.categories) for c in CATEGORIES}


RELEVANT_TABLE_FEATURES: dict[str, tuple[str, ...]] = _per_category(TABLE_FEATURES)
RELEVANT_FEATURES: dict[str, tuple[str, ...]] = _per_category(MODEL_FEATURES)  # the 24-feature names
RELEVANT_PRIOR_RULES: dict[str, tuple[str, ...]] = _per_category(PRIOR_RULES)
RELEVANT_POSTERIOR_RULES: dict[str, tuple[str, ...]] = _per_category(POSTERIOR_RULES)


# --------------------------------------------------------------------------------------------------------------
# Encoding helpers

_TRUE_WORDS = {"yes", "true", "1"}
_FALSE_WORDS = {"no", "false", "0"}


def class_index(classes: tuple[Any, ...], value: Any) -> int:
    """Class id of ``value`` among ``classes`` (``"irrelevant"`` or ``None`` -> ``len(classes)``).

    Booleans also accept ``"yes"``/``"no"``/``"true"``/``"false"``/0/1; strings match case-insensitively."""
    if value is None or (isinstance(value, str) and value.lower() == IRRELEVANT):
        return len(classes)
    if classes == BOOLEANS:
        if isinstance(value, str):
            w = value.strip().lower()
            if w in _TRUE_WORDS:
                return 1
            if w in _FALSE_WORDS:
                return 0
            raise ValueError(f"not a boolean value: {value!r}")
        if isinstance(value, (bool, int)) and value in (0, 1):
            return int(value)
        if isinstance(value, float) and value in (0.0, 1.0):
            return int(value)
        raise ValueError(f"not a boolean value: {value!r}")
    if isinstance(value, str):
        low = value.strip().lower()
        for i, c in enumerate(classes):
            if str(c).lower() == low:
                return i
    raise ValueError(f"{value!r} is not one of {list(classes) + [IRRELEVANT]}")


def split_velocity(velocity: float) -> tuple[float, str]:
    """Signed velocity (+ = to the right in the image) -> (speed >= 0, direction ``"left"``/``"right"``).

    Zero counts as ``"right"`` (the original code: negative -> 0, non-negative -> 1)."""
    v = float(velocity)
    return abs(v), ("left" if v < 0 else "right")


def make_features(category: str, values: Mapping[str, Any]) -> dict[str, Any]:
    """The 24 model features of a video of ``category`` from the values of its relevant features.

    ``values`` uses Table-5 or model-feature names; signed velocities are split. Irrelevant features are filled
    in (-1.0 or ``"irrelevant"``); a missing relevant feature, an unknown name, a negative scalar or a value for a
    feature that is irrelevant to the category raises ``ValueError``. Class values are normalised (e.g.
    ``"Cube"`` -> ``"cube"``, ``1`` -> ``True``)."""
    category = category_of(category)
    flat: dict[str, Any] = {}
    for name, value in values.items():
        tf = TABLE_FEATURE_BY_NAME.get(name)
        if tf is not None and tf.kind == "velocity":
            if value is None or value == IRRELEVANT:
                continue
            stem = name[: -len("_velocity")]
            flat[f"{stem}_speed"], flat[f"{stem}_direction"] = split_velocity(value)
        elif name in MODEL_FEATURE_BY_NAME:
            flat[name] = value
        else:
            raise ValueError(f"unknown feature {name!r}")
    out: dict[str, Any] = {}
    for f in MODEL_FEATURES:
        given: Any = flat.get(f.name)
        is_irr = (
            given is None
            or (isinstance(given, str) and given == IRRELEVANT)
            or (f.head == "regression" and not isinstance(given, str) and float(given) == IRRELEVANT_SCALAR)
        )
        if not f.relevant_to(category):
            if not is_irr:
                raise ValueError(f"feature {f.name!r} is irrelevant to category {category} but got {given!r}")
            out[f.name] = f.irrelevant_value
            continue
        if is_irr:
            raise ValueError(f"feature {f.name!r} is relevant to category {category} and needs a value")
        if f.head == "regression":
            x = float(given)
            if not math.isfinite(x) or x < 0:
                raise ValueError(f"feature {f.name!r} must be a finite value >= 0, got {given!r}")
            out[f.name] = x
        else:
            i = class_index(f.classes, given)
            if i == len(f.classes):
                raise ValueError(f"feature {f.name!r} is relevant to category {category} and needs a value")
            out[f.name] = f.classes[i]
    return out


def make_rules(category: str, values: Mapping[str, Any], kind: str) -> dict[str, Any]:
    """All 13 prior (``kind="prior"``) or 9 posterior rules for ``category``: the relevant ones from ``values``
    (booleans or yes/no), the others ``"irrelevant"``. Missing, unknown or misplaced names raise ``ValueError``."""
    category = category_of(category)
    rules = {"prior": PRIOR_RULES, "posterior": POSTERIOR_RULES}[kind]
    known = {r.name for r in rules}
    for name in values:
        if name not in known:
            raise ValueError(f"unknown {kind} rule {name!r}")
    out: dict[str, Any] = {}
    for r in rules:
        given = values.get(r.name)
        i = class_index(BOOLEANS, given)
        if r.relevant_to(category):
            if i == 2:
                raise ValueError(f"{kind} rule {r.name!r} is relevant to category {category} and needs a value")
            out[r.name] = BOOLEANS[i]
        else:
            if i != 2:
                raise ValueError(f"{kind} rule {r.name!r} is irrelevant to category {category} but got {given!r}")
            out[r.name] = IRRELEVANT
    return out


def make_labels(
    category: str, features: Mapping[str, Any], prior_rules: Mapping[str, Any], posterior_rules: Mapping[str, Any]
) -> dict[str, dict[str, Any]]:
    """The complete ``labels`` object of one AVoE video (JSON-ready): ``features`` (24), ``prior_rules`` (13),
    ``posterior_rules`` (9), with every irrelevant entry filled in. See :func:`make_features`."""
    return {
        "features": make_features(category, features),
        "prior_rules": make_rules(category, prior_rules, "prior"),
        "posterior_rules": make_rules(category, posterior_rules, "posterior"),
    }


def validate_labels(category: str, labels: Mapping[str, Any]) -> None:
    """Raise ``ValueError`` unless ``labels`` is a complete, consistent labels object for ``category``."""
    for key, names in (
        ("features", MODEL_FEATURE_NAMES),
        ("prior_rules", PRIOR_RULE_NAMES),
        ("posterior_rules", POSTERIOR_RULE_NAMES),
    ):
        part = labels.get(key)
        if not isinstance(part, Mapping):
            raise ValueError(f"labels.{key} missing")
        missing = [n for n in names if n not in part]
        if missing:
            raise ValueError(f"labels.{key} lacks {missing}")
    rebuilt = make_labels(
        category, {k: v for k, v in labels["features"].items()}, labels["prior_rules"], labels["posterior_rules"]
    )
    for key in rebuilt:
        for name, value in rebuilt[key].items():
            if labels[key][name] != value and not (
                isinstance(value, float) and math.isclose(float(labels[key][name]), value)
            ):
                raise ValueError(f"labels.{key}.{name} = {labels[key][name]!r}, expected {value!r}")


def feature_vector(features: Mapping[str, Any]) -> list[float]:
    """24 numbers in ``MODEL_FEATURES`` order: scalars (-1 if irrelevant) and class indices."""
    return [f.encode(features.get(f.name)) for f in MODEL_FEATURES]


def rule_vector(rules: Mapping[str, Any], kind: str) -> list[int]:
    """13 (prior) or 9 (posterior) class indices: False 0, True 1, irrelevant 2."""
    rs = {"prior": PRIOR_RULES, "posterior": POSTERIOR_RULES}[kind]
    return [r.encode(rules.get(r.name)) for r in rs]


def features_from_vector(vector) -> dict[str, Any]:
    """Inverse of :func:`feature_vector` (e.g. for a network's predictions)."""
    return {f.name: f.decode(float(x)) for f, x in zip(MODEL_FEATURES, vector)}


def rules_from_vector(vector, kind: str) -> dict[str, Any]:
    rs = {"prior": PRIOR_RULES, "posterior": POSTERIOR_RULES}[kind]
    return {r.name: r.decode(float(x)) for r, x in zip(rs, vector)}


__all__ = [
    "CATEGORIES",
    "CATEGORY_NAMES",
    "IRRELEVANT",
    "IRRELEVANT_SCALAR",
    "SHAPES",
    "CONTAINER_SHAPES",
    "DIRECTIONS",
    "BOOLEANS",
    "RULE_VALUES",
    "TableFeature",
    "TABLE_FEATURES",
    "TABLE_FEATURE_BY_NAME",
    "ModelFeature",
    "MODEL_FEATURES",
    "MODEL_FEATURE_BY_NAME",
    "MODEL_FEATURE_NAMES",
    "Rule",
    "PRIOR_RULES",
    "POSTERIOR_RULES",
    "PRIOR_RULE_NAMES",
    "POSTERIOR_RULE_NAMES",
    "RULE_BY_NAME",
    "RELEVANT_TABLE_FEATURES",
    "RELEVANT_FEATURES",
    "RELEVANT_PRIOR_RULES",
    "RELEVANT_POSTERIOR_RULES",
    "category_of",
    "class_index",
    "split_velocity",
    "make_features",
    "make_rules",
    "make_labels",
    "validate_labels",
    "feature_vector",
    "rule_vector",
    "features_from_vector",
    "rules_from_vector",
]
