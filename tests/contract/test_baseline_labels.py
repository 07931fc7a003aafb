"""The AVoE label vocabulary (pure python) and the metrics / decision trees (numpy)."""

import json
import subprocess
import sys

import numpy as np
import pytest

from voebench.contract import avoe_labels as L
from voebench.evaluate.baseline import metrics as M
from voebench.evaluate.baseline.trees import PhysicalReasoning, SimpleTreeClassifier, sklearn_available


def test_vocabulary_sizes_and_tables():
    assert len(L.TABLE_FEATURES) == 20 and [f.number for f in L.TABLE_FEATURES] == list(range(1, 21))
    assert len(L.MODEL_FEATURES) == 24
    assert len(L.PRIOR_RULES) == 13 and len(L.POSTERIOR_RULES) == 9
    # 20 features, the 4 velocities split into speed + direction
    assert sum(f.head == "regression" for f in L.MODEL_FEATURES) == 14
    assert L.MODEL_FEATURE_BY_NAME["left_prior_direction"].classes == ("left", "right")
    assert L.MODEL_FEATURE_BY_NAME["object_shape"].n_classes == 8  # 7 shapes + irrelevant
    assert L.MODEL_FEATURE_BY_NAME["container_shape"].n_classes == 3
    # Table 5 ticks per category
    assert L.RELEVANT_TABLE_FEATURES["A"] == ("object_height", "object_width", "contact_point", "object_shape")
    assert len(L.RELEVANT_TABLE_FEATURES["D"]) == 8
    assert L.RELEVANT_PRIOR_RULES["E"] == (
        "wall_has_opening",
        "blocker_soft",
        "object_thinner_than_opening",
        "object_shorter_than_opening",
    )
    assert [len(L.RELEVANT_POSTERIOR_RULES[c]) for c in L.CATEGORIES] == [1, 1, 2, 4, 1]
    # head order of the original code (loss indices A [0,1,18,20], D [2..11,21,22], E [0,1,14..17,20])
    idx = {c: [L.MODEL_FEATURE_BY_NAME[n].index for n in L.RELEVANT_FEATURES[c]] for c in L.CATEGORIES}
    assert idx["A"] == [0, 1, 18, 20] and idx["B"] == [0, 1, 19, 20] and idx["C"] == [0, 1, 12, 13, 20, 23]
    assert idx["D"] == list(range(2, 12)) + [21, 22] and idx["E"] == [0, 1, 14, 15, 16, 17, 20]


def test_irrelevant_encoding_and_velocity_split():
    lab = L.make_labels(
        "D",
        {
            "left_size": 1.0,
            "right_size": 1.5,
            "left_prior_velocity": 2.0,
            "right_prior_velocity": -1.0,
            "left_posterior_velocity": -0.5,
            "right_posterior_velocity": 0.0,
            "left_shape": "Cube",
            "right_shape": "cone",
        },
        {
            "right_object_larger": True,
            "objects_same_size": False,
            "right_object_faster": "no",
            "objects_same_speed": False,
        },
        {
            "right_object_changed_direction": True,
            "left_object_changed_direction": True,
            "right_object_sped_up": False,
            "left_object_sped_up": False,
        },
    )
    f = lab["features"]
    assert f["object_height"] == -1.0 and f["contact_point"] == -1.0  # irrelevant scalars
    assert f["object_shape"] == "irrelevant" and f["wall_soft"] == "irrelevant"  # irrelevant classes
    assert (f["left_prior_speed"], f["left_prior_direction"]) == (2.0, "right")
    assert (f["right_prior_speed"], f["right_prior_direction"]) == (1.0, "left")
    assert f["right_posterior_direction"] == "right"  # zero counts as non-negative, as the original
    assert f["left_shape"] == "cube"
    assert lab["prior_rules"]["right_object_faster"] is False
    assert lab["prior_rules"]["object_majority_contact"] == "irrelevant"
    json.dumps(lab)  # JSON-ready
    L.validate_labels("D", lab)
    vec = L.feature_vector(f)
    assert vec[0] == -1.0 and vec[5] == 1.0 and vec[7] == 0.0 and vec[20] == 7.0 and vec[21] == 0.0
    assert vec[14] == 2.0  # wall_opening irrelevant -> class 2
    assert L.features_from_vector(vec) == f
    assert L.rule_vector(lab["prior_rules"], "prior")[:6] == [2, 2, 2, 2, 2, 1]
    assert (
        L.rules_from_vector(L.rule_vector(lab["posterior_rules"], "posterior"), "posterior") == lab["posterior_rules"]
    )


def test_make_labels_rejects_bad_input():
    good = {"object_height": 1.0, "object_width": 1.0, "contact_point": 0.3, "object_shape": "cube"}
    with pytest.raises(ValueError, match="relevant"):
        L.make_features("A", {k: v for k, v in good.items() if k != "contact_point"})
    with pytest.raises(ValueError, match="irrelevant"):
        L.make_features("A", {**good, "container_height": 1.0})
    with pytest.raises(ValueError, match=">= 0"):
        L.make_features("A", {**good, "object_height": -2.0})
    with pytest.raises(ValueError, match="unknown"):
        L.make_features("A", {**good, "colour": 1})
    with pytest.raises(ValueError):
        L.make_features("A", {**good, "object_shape": "pyramid"})
    with pytest.raises(ValueError, match="relevant"):
        L.make_rules("A", {"object_majority_contact": True}, "prior")
    assert L.category_of("E3") == "E" and L.category_of("barrier") == "E" and L.category_of("collision") == "D"


def test_labels_module_imports_without_torch():
    code = (
        "import sys; import voebench.contract.avoe_labels as L; "
        "assert 'torch' not in sys.modules and 'numpy' not in sys.modules; print(len(L.MODEL_FEATURES))"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "24"


def test_metrics_hand_computed():
    # three pairs: (exp 0.2, sur 0.9) hit; (0.5, 0.5) tie; (0.8, 0.1) miss; plus an unpaired video
    scores = [0.2, 0.9, 0.5, 0.5, 0.8, 0.1, 0.7]
    labels = [0, 1, 0, 1, 0, 1, 1]
    pairs = ["a", "a", "b", "b", "c", "c", "lonely"]
    assert M.make_pairs(labels, pairs) == [(0, 1), (2, 3), (4, 5)]
    assert M.hit_rate(scores, labels, pairs) == pytest.approx((1 + 0.5 + 0) / 3)
    assert M.relative_accuracy(scores, labels, pairs) == pytest.approx(1 / 3)
    # >= 0.5 -> surprising: 0.2 ok, 0.9 ok, 0.5 wrong, 0.5 ok, 0.8 wrong, 0.1 wrong, 0.7 ok
    assert M.absolute_accuracy(scores, labels) == pytest.approx(4 / 7)
    # AUC: positives {0.9, 0.5, 0.1, 0.7} vs negatives {0.2, 0.5, 0.8}: wins 3+2.5... counted by hand
    # 0.9: beats 3 -> 3; 0.5: beats 0.2, ties 0.5 -> 1.5; 0.1: 0; 0.7: beats 0.2, 0.5 -> 2. total 6.5 / 12
    assert M.auc(scores, labels) == pytest.approx(6.5 / 12)
    # binary OFPR-style scores: flagged only the surprising one in 2 of 3 pairs, both in the third
    assert M.hit_rate([0, 1, 0, 1, 1, 1], [0, 1] * 3, ["x", "x", "y", "y", "z", "z"]) == pytest.approx(2.5 / 3)
    assert np.isnan(M.hit_rate([0.1], [1], ["a"])) and np.isnan(M.auc([0.1, 0.2], [1, 1]))
    assert M.batched(M.auc, 2, [0.1, 0.9, 0.9, 0.1], [0, 1, 0, 1]) == pytest.approx(0.5)


@pytest.mark.skipif(not sklearn_available(), reason="scikit-learn not installed")
def test_auc_matches_sklearn():
    from sklearn.metrics import roc_auc_score

    rng = np.random.default_rng(0)
    s, y = rng.integers(0, 5, 200), rng.integers(0, 2, 200)
    assert M.auc(s, y) == pytest.approx(roc_auc_score(y, s))


def _toy_rules(n, rng):
    """Category A-like data: prior = contact <= 0.5, posterior = prior (support holds)."""
    feats = np.full((n, 24), -1.0)
    feats[:, [14, 15, 5, 7, 9, 11, 23]] = 2  # irrelevant classes
    feats[:, 20] = rng.integers(0, 7, n)  # shape
    feats[:, [21, 22]] = 7
    feats[:, 0], feats[:, 1] = rng.uniform(0.6, 1.4, n), rng.uniform(0.4, 1.8, n)
    feats[:, 18] = rng.uniform(0.2, 0.8, n)
    holds = (feats[:, 18] <= 0.5).astype(int)
    priors = np.full((n, 13), 2)
    priors[:, 0] = priors[:, 1] = holds
    posts = np.full((n, 9), 2)
    posts[:, 0] = holds
    return feats, priors, posts


@pytest.mark.parametrize("backend", ["numpy"] + (["sklearn"] if sklearn_available() else []))
def test_decision_tree_stage(backend):
    rng = np.random.default_rng(1)
    F, P, Q = _toy_rules(200, rng)
    pr = PhysicalReasoning(prefer=backend).fit(F, P, Q)
    assert pr.backend == backend
    Ft, Pt, Qt = _toy_rules(100, rng)
    assert pr.predict_priors(Ft).shape == (100, 13)
    assert (pr.predict_priors(Ft) == Pt).mean() > 0.98
    assert (pr.predict_posteriors(Ft) == Qt).mean() > 0.98
    # oracle comparison: the expected outcome is not surprising, the flipped one is
    assert pr.surprise(Ft, Qt).mean() < 0.05
    flipped = Qt.copy()
    flipped[:, 0] = 1 - flipped[:, 0]
    assert pr.surprise(Ft, flipped).mean() > 0.95
    # hand case: contact 0.3 -> holds (1), contact 0.7 -> falls (0)
    f = Ft[:2].copy()
    f[0, 18], f[1, 18] = 0.3, 0.7
    assert pr.predict_posteriors(f)[:, 0].tolist() == [1, 0]
    assert pr.surprise(f, np.array([[1] + [2] * 8, [1] + [2] * 8])).tolist() == [0.0, 1.0]


def test_numpy_tree_handles_xor_like_sklearn():
    X = np.array([[0, 0], [0, 1], [1, 0], [1, 1]] * 5, dtype=float)
    y = np.array([0, 1, 1, 0] * 5)
    assert (SimpleTreeClassifier().fit(X, y).predict(X) == y).all()
