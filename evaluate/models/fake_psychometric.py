"""`fake:psychometric:threshold=T,slope=S[,guess=G,lapse=L,sigmoid=logistic|normal,seed=N]`: a scorer with a known
psychometric curve, so tests and bench/psychometric_recovery.py can show that the fit recovers what was put in.

It answers a yes/no question about a video by noticing the violation with probability
psi(level) = G + (1 - G - L) * F(S * (level - T)) (evaluate/psychometrics/function.py; F logistic by default),
where `level` is the video's violation level in the test's own unit (0: the plausible twin). Defaults: G = 0.5,
L = 0.02, seed 0. Noticing means answering as for a violation: "No." to "Is this video physically plausible?";
for a yes/no statement, the answer that is true of the implausible video (the sample's truth at a level above 0,
its opposite at level 0). Not noticing gives the other answer. The draw is seeded by (seed, repeat seed, sample,
turn), so a run is reproducible and repeats differ. Earlier turns (CoT, one-shot) get the neutral replies of
`fake:<kind>`. Choice and open questions are refused per request (the runner records the failure).

The level is read from the sample: its `violation_level` attribute, else `meta["violation_level"]` (a mapping
sample: its "violation_level" key). The manifest entry's field is `violation_level` (issue 24: the generator side
writes it per video); until evaluate.tasks copies it onto the Sample, a sample without it fails with a message
that names the field.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

from voebench.errors import UsageError
from voebench.evaluate.models.base import Adapter, AdapterError, Request
from voebench.evaluate.models.kinds.fake import PSYCHOMETRIC as PREFIX
from voebench.evaluate.psychometrics.function import SIGMOIDS, psi

FIELD = "violation_level"
DEFAULTS: dict[str, Any] = {"guess": 0.5, "lapse": 0.02, "sigmoid": "logistic", "seed": 0}
HELP = "fake:psychometric:threshold=T,slope=S[,guess=0.5,lapse=0.02,sigmoid=logistic|normal,seed=0]"


def parse_options(rest: str) -> dict[str, Any]:
    """'psychometric:threshold=0.4,slope=8' -> the adapter's keyword arguments; UsageError naming the problem."""
    head, _, opts = rest.partition(":")
    if head != PREFIX:
        raise UsageError(f"--model fake:{rest}: expected {HELP}")
    out: dict[str, Any] = dict(DEFAULTS)
    for item in filter(None, (o.strip() for o in opts.split(","))):
        key, eq, value = item.partition("=")
        if not eq or key not in ("threshold", "slope", *DEFAULTS):
            raise UsageError(f"--model fake:{rest}: unknown option {item!r}; expected {HELP}")
        if key == "sigmoid":
            if value not in SIGMOIDS:
                raise UsageError(f"--model fake:{rest}: sigmoid {value!r}: choose one of {', '.join(SIGMOIDS)}")
            out[key] = value
            continue
        try:
            out[key] = int(value) if key == "seed" else float(value)
        except ValueError:
            raise UsageError(f"--model fake:{rest}: {key}={value!r} is not a number") from None
        if key != "seed" and not math.isfinite(out[key]):
            raise UsageError(f"--model fake:{rest}: {key}={value!r} is not a finite number")
    missing = [k for k in ("threshold", "slope") if k not in out]
    if missing:
        raise UsageError(f"--model fake:{rest}: needs {' and '.join(missing)}; expected {HELP}")
    if out["slope"] <= 0:
        raise UsageError(f"--model fake:{rest}: slope must be > 0")
    if min(out["guess"], out["lapse"]) < 0 or out["guess"] + out["lapse"] >= 1:
        raise UsageError(f"--model fake:{rest}: guess and lapse must be >= 0 with guess + lapse < 1")
    return out


def violation_level(sample: object) -> float | None:
    """The sample's violation level, or None when it carries none."""
    if isinstance(sample, Mapping):
        value = sample.get(FIELD)
    else:
        value = getattr(sample, FIELD, None)
        if value is None:
            value = (getattr(sample, "meta", None) or {}).get(FIELD)
    return None if value is None else float(value)


class PsychometricFake(Adapter):
    def __init__(
        self,
        threshold: float,
        slope: float,
        guess: float = 0.5,
        lapse: float = 0.02,
        sigmoid: str = "logistic",
        seed: int = 0,
    ):
        self.threshold, self.slope, self.guess, self.lapse = threshold, slope, guess, lapse
        self.sigmoid, self.seed = sigmoid, seed
        self.name = (
            f"fake:{PREFIX}:threshold={threshold:g},slope={slope:g},guess={guess:g},lapse={lapse:g}"
            + (f",sigmoid={sigmoid}" if sigmoid != "logistic" else "")
            + f",seed={seed}"
        )
        self.batch_size = 64

    def settings(self) -> dict:
        return {
            "kind": PREFIX,
            "threshold": self.threshold,
            "slope": self.slope,
            "guess": self.guess,
            "lapse": self.lapse,
            "sigmoid": self.sigmoid,
            "seed": self.seed,
        }

    def p_noticed(self, level: float) -> float:
        return float(psi(level, self.threshold, self.slope, self.guess, self.lapse, self.sigmoid))

    def _final(self, r: Request) -> str | BaseException:
        s = r.sample
        kind = s.get("kind") if isinstance(s, Mapping) else getattr(s, "kind", None)
        if kind not in ("plausibility", "binary"):
            return AdapterError(f"fake:{PREFIX} answers yes/no questions only, not {kind!r} ones")
        level = violation_level(s)
        if level is None:
            return AdapterError(
                f"fake:{PREFIX}: the sample has no {FIELD} (the manifest entry's per-video "
                "violation level; 0 for the plausible twin)"
            )
        sid = s.get("sample_id") if isinstance(s, Mapping) else s.sample_id
        truth = str(s.get("truth") if isinstance(s, Mapping) else s.truth).lower()
        if kind == "plausibility":
            seen, unseen = "no", "yes"
        else:
            seen = truth if level > 0 else ("no" if truth == "yes" else "yes")
            unseen = "no" if seen == "yes" else "yes"
        noticed = random.Random(f"{self.seed}/{r.seed}/{sid}/{r.turn}").random() < self.p_noticed(level)
        return f"{(seen if noticed else unseen).capitalize()}."

    def generate(self, requests: list[Request]) -> list[str | BaseException]:
        out: list[str | BaseException] = []
        for r in requests:
            if r.turn < r.n_turns - 1:
                strategy = getattr(r.sample, "strategy", None)
                out.append("Understood." if strategy == "one-shot" else "I see a video.")
            elif r.sample is None:
                out.append(AdapterError(f"fake:{PREFIX} needs the sample (its {FIELD})"))
            else:
                out.append(self._final(r))
        return out


def make(rest: str) -> PsychometricFake:
    """The adapter of a `fake:psychometric:...` spec (`rest` is what follows 'fake:')."""
    return PsychometricFake(**parse_options(rest))
