"""The physical-reasoning stage of OFPR-Net: two multi-target decision trees (numpy; scikit-learn if present).

- tree 1: 24 features -> 13 prior rules
- tree 2: 24 features + 13 prior rules -> 9 posterior rules (the original's "combined" configuration, dt1 + dt4)

Both are fitted on ground-truth labels of *expected* training videos (what normally happens). At test time the
features come from the object-file network; the predicted posterior rules are compared with the observed outcome
(the oracle posterior rules of the video): any difference flags the video as surprising (score 1, else 0).

The original used ``MultiOutputClassifier(DecisionTreeClassifier())`` with defaults. When scikit-learn cannot be
imported (e.g. a bare GPU machine), :class:`SimpleTreeClassifier` does the same job: an unpruned CART tree with Gini
impurity and midpoint thresholds per target. ``make_multi_tree(prefer="numpy")`` forces it.
"""

from __future__ import annotations

from typing import Any

import numpy as np


class _Node:
    __slots__ = ("feature", "threshold", "left", "right", "value")

    def __init__(self, value=None, feature=-1, threshold=0.0, left=None, right=None):
        self.value, self.feature, self.threshold, self.left, self.right = value, feature, threshold, left, right


class SimpleTreeClassifier:
    """Single-target CART classifier: Gini impurity, best split over all features, grown until leaves are pure or
    no split separates the samples (like sklearn's defaults). Random tie-breaking is replaced by first-best."""

    def __init__(self, max_depth: int | None = None):
        self.max_depth = max_depth
        self.root: _Node | None = None

    @staticmethod
    def _gini(counts: np.ndarray) -> np.ndarray:
        tot = counts.sum(-1, keepdims=True)
        p = counts / np.maximum(tot, 1)
        return 1.0 - (p**2).sum(-1)

    def fit(self, X, y):
        X = np.asarray(X, dtype=np.float64)
        y = np.asarray(y)
        self.classes_, yi = np.unique(y, return_inverse=True)
        self.root = self._grow(X, yi, 0)
        return self

    def _grow(self, X, y, depth):
        k = len(self.classes_)
        counts = np.bincount(y, minlength=k)
        node = _Node(value=int(np.argmax(counts)))
        if counts.max() == len(y) or (self.max_depth is not None and depth >= self.max_depth):
            return node
        best = (np.inf, -1, 0.0)  # like sklearn, accept a split even without impurity gain (XOR)
        n = len(y)
        for j in range(X.shape[1]):
            order = np.argsort(X[:, j], kind="mergesort")
            xs, ys = X[order, j], y[order]
            onehot = np.zeros((n, k))
            onehot[np.arange(n), ys] = 1
            left = np.cumsum(onehot, 0)[:-1]  # counts of the first i+1 samples
            right = counts[None] - left
            valid = xs[1:] != xs[:-1]
            if not valid.any():
                continue
            nl = np.arange(1, n)[:, None]
            imp = (nl[:, 0] * self._gini(left) + (n - nl[:, 0]) * self._gini(right)) / n
            imp = np.where(valid, imp, np.inf)
            i = int(np.argmin(imp))
            if imp[i] < best[0]:
                best = (imp[i], j, (xs[i] + xs[i + 1]) / 2.0)
        if best[1] < 0:
            return node
        j, t = best[1], best[2]
        mask = X[:, j] <= t
        node.feature, node.threshold = j, t
        node.left = self._grow(X[mask], y[mask], depth + 1)
        node.right = self._grow(X[~mask], y[~mask], depth + 1)
        return node

    def predict(self, X):
        X = np.asarray(X, dtype=np.float64)
        out = np.empty(len(X), dtype=np.int64)
        for i, x in enumerate(X):
            node: Any = self.root
            while node.left is not None:
                node = node.left if x[node.feature] <= node.threshold else node.right
            out[i] = node.value
        return self.classes_[out]


class SimpleMultiOutputTree:
    """One :class:`SimpleTreeClassifier` per target column (what MultiOutputClassifier does)."""

    def fit(self, X, Y):
        Y = np.asarray(Y)
        self.estimators_ = [SimpleTreeClassifier().fit(X, Y[:, j]) for j in range(Y.shape[1])]
        return self

    def predict(self, X):
        return np.stack([e.predict(X) for e in self.estimators_], axis=1)


def sklearn_available() -> bool:
    try:
        import sklearn.tree  # noqa: F401  (scikit-learn is optional: numpy trees otherwise)

        return True
    except ImportError:
        return False


def make_multi_tree(prefer: str = "auto", random_state: int = 0):
    """A multi-target decision-tree classifier: scikit-learn's when importable (``prefer`` "auto"/"sklearn"),
    else (or with ``prefer="numpy"``) :class:`SimpleMultiOutputTree`."""
    if prefer in ("auto", "sklearn") and sklearn_available():
        from sklearn.multioutput import MultiOutputClassifier  # optional, see above
        from sklearn.tree import DecisionTreeClassifier

        return MultiOutputClassifier(DecisionTreeClassifier(random_state=random_state))
    if prefer == "sklearn":
        raise ImportError("scikit-learn is not installed")
    return SimpleMultiOutputTree()


class PhysicalReasoning:
    """features -> prior rules (tree 1); features + priors -> posterior rules (tree 2); compare with observed."""

    def __init__(self, prefer: str = "auto", random_state: int = 0):
        self.prefer = prefer
        self.random_state = random_state
        self.priors_tree: Any = None  # a fitted multi-output tree (sklearn or SimpleMultiOutputTree)
        self.posteriors_tree: Any = None

    @property
    def backend(self) -> str:
        t = self.priors_tree
        return "numpy" if isinstance(t, SimpleMultiOutputTree) else "sklearn"

    def fit(self, features, priors, posteriors) -> PhysicalReasoning:
        """``features`` (N, 24) encoded (labels.feature_vector), ``priors`` (N, 13), ``posteriors`` (N, 9)
        class indices (labels.rule_vector), from expected videos."""
        F = np.asarray(features, dtype=np.float64)
        P = np.asarray(priors, dtype=np.int64)
        Q = np.asarray(posteriors, dtype=np.int64)
        if len(F) == 0:
            raise ValueError("no training videos for the decision trees")
        self.priors_tree = make_multi_tree(self.prefer, self.random_state).fit(F, P)
        self.posteriors_tree = make_multi_tree(self.prefer, self.random_state).fit(np.hstack([F, P]), Q)
        return self

    def predict_priors(self, features) -> np.ndarray:
        return np.asarray(self.priors_tree.predict(np.asarray(features, dtype=np.float64)), dtype=np.int64)

    def predict_posteriors(self, features, priors=None) -> np.ndarray:
        F = np.asarray(features, dtype=np.float64)
        P = self.predict_priors(F) if priors is None else np.asarray(priors)
        return np.asarray(self.posteriors_tree.predict(np.hstack([F, P])), dtype=np.int64)

    def surprise(self, features, observed_posteriors) -> np.ndarray:
        """1.0 where the expected (predicted) posterior rules differ from the observed ones in any entry."""
        pred = self.predict_posteriors(features)
        return (pred != np.asarray(observed_posteriors)).any(axis=1).astype(np.float64)
