"""AVoE (Dasgupta et al.): violation of expectation across five event categories, A Support, B Occlusion,
C Containment, D Collision, E Barrier, with the 12 sub-types of supplementary Table 1 as this suite's tests.

Tests are the sub-types (`A1`, `A2`, `B1`, ... `E3`), so the manifest `test` is the sub-type, reports group by
sub-type, and `--tests D2` renders one sub-type. One scene script per category (`a_support.py` ...
`e_barrier.py`) builds all of its sub-types from one randomization space. The sub-types of a category share
one stream of trials: trial `i` of category A is sampled once (seed from `(base seed, "avoe", "A", i)`) and
belongs to exactly one sub-type, given by the script's `subtype(p)`; the test of the other sub-type skips it.
So `--trials N` is N trials *per category* (as the paper's 5,000), divided among its sub-types as sampling
falls: A/B/C by the outcome the parameters lead to (A1 stays / A2 falls; B1 seen / B2 not seen over the
middle; C1 contained / C2 not), D/E by a weighted choice with the paper's Table 1 proportions. `--categories
A,B` selects A1, A2, B1, B2. A category asked for in part (`--tests E2`) makes its first N trials that are of an
asked sub-type, with their category-wide indices (`partial_streams`, generator/streams.py).

A trial is rendered `expected` and `surprising` (shared `pair_id`), except train trials, which render only
`expected` unless `--both-conditions`. The split (train / validation / test, 75 / 15 / 10 %) is a function
of the trial's seed, so it is the same whatever is rendered.

A category script implements `CategoryModule`: `SPACE`, `build(scene, p, condition)`, `subtype(p)`,
`labels(scene, p)` (features, prior and posterior rules via `voebench.contract.avoe_labels.make_labels`; posterior
rules measured on the built scene's tracks), `describe(scene, p, condition)`, `level_key(p)`, `CATEGORY`,
`SUBTYPES` and `BINARY`. What its prompt asks about and assumes is data in `prompts.py` (per category), outside
the code fingerprint.
"""

from __future__ import annotations

import hashlib
from typing import TYPE_CHECKING, Protocol

from voebench.contract.avoe_labels import CATEGORY_NAMES, category_of
from voebench.errors import UsageError
from voebench.generator.contracts import SceneModule
from voebench.generator.params import Params, derive_seed
from voebench.generator.scene import Scene
from voebench.generator.suite import Job, Suite, Timing
from voebench.scenes.avoe import prompts

CATEGORY_MODULES = {"A": "a_support", "B": "b_occlusion", "C": "c_containment", "D": "d_collision", "E": "e_barrier"}
SUBTYPES = {"A": ("A1", "A2"), "B": ("B1", "B2"), "C": ("C1", "C2"), "D": ("D1", "D2", "D3"), "E": ("E1", "E2", "E3")}
TESTS = tuple(t for c in "ABCDE" for t in SUBTYPES[c])
SPLITS = (("train", 0.75), ("validation", 0.15), ("test", 0.10))


def split_of(seed: int) -> str:
    """train / validation / test for a trial, from its seed (75 / 15 / 10 %)."""
    u = int.from_bytes(hashlib.sha256(f"avoe-split/{seed}".encode()).digest()[:8], "little") / 2.0**64
    acc = 0.0
    for name, share in SPLITS:
        acc += share
        if u < acc:
            return name
    return SPLITS[-1][0]


class CategoryModule(SceneModule, Protocol):
    """An AVoE category: one randomization space whose draws fall into its sub-types."""

    @property
    def CATEGORY(self) -> str:
        """A-E."""
        ...

    @property
    def SUBTYPES(self) -> dict[str, str]:
        """Each sub-type -> what sets it apart."""
        ...

    @property
    def BINARY(self) -> dict[str, str]:
        """Each sub-type whose violation has no size to grade -> why."""
        ...

    def subtype(self, p: Params) -> str:
        """The sub-type a draw belongs to."""
        ...

    def level_key(self, p: Params) -> str | None:
        """The Level leaf that grades this draw's violation; None where it is binary."""
        ...

    def labels(self, scene: Scene, p: Params) -> dict:
        """The AVoE labels (features, prior and posterior rules) of a built scene."""
        ...


class AVoE(Suite[CategoryModule]):
    name = "avoe"
    package = "voebench.scenes.avoe"
    tests = TESTS
    contract = CategoryModule
    default_trials = 5000  # per category (the paper's 5,000; --fraction 0.1 gives its 10% subset of 500)
    violated_condition = "surprising"
    default_timing = Timing(50 / 24, 24.0)  # 50 frames at 24 fps, as rendered by the original
    default_resolution = (960, 540)
    default_render_path = "dirty"  # about half the full path's time at 960x540 (docs/performance.md)

    def module(self, test: str) -> CategoryModule:
        """The category module that builds sub-type `test`."""
        if test not in self.tests:
            raise UsageError(
                f"unknown test {test!r} in suite avoe; one of: {', '.join(self.tests)} "
                "(or select categories with --categories A,B)"
            )
        return self._import(CATEGORY_MODULES[test[0]])

    def trial_seed(self, test: str, base_seed: int, index: int) -> int:
        # One trial stream per category: every sub-type test sees the same trial i and keeps it if it is its own.
        return derive_seed(base_seed, self.name, test[0], index)

    def subtype(self, test: str, p: Params) -> str:
        return self.module(test).subtype(p)

    def level_key(self, test: str, p: Params) -> str | None:
        return self.module(test).level_key(p)

    def binary_reason(self, test: str) -> str:
        return self.module(test).BINARY.get(test, "")

    def conditions(self, test: str, p: Params, options: dict) -> list[str]:
        if self.subtype(test, p) != test:
            return []
        if split_of(options["seed"]) == "train" and not options.get("both_conditions", False):
            return ["expected"]
        return ["expected", "surprising"]

    # ----------------------------------------------------------------- CLI hooks

    def options_from_args(self, args) -> dict:
        return {"both_conditions": bool(getattr(args, "both_conditions", False))}

    def select_tests(self, tests_arg: str | None, categories_arg: str | None = None) -> list[str]:
        """`--tests` takes sub-types (A1) or categories (A, support); `--categories` takes categories."""
        chosen: list[str] = []

        def add(names: tuple[str, ...] | list[str]) -> None:
            for n in names:
                if n not in chosen:
                    chosen.append(n)

        if categories_arg:
            for part in (s.strip() for s in categories_arg.split(",") if s.strip()):
                try:
                    cat = category_of(part)
                except ValueError:
                    raise UsageError(
                        f"--categories {part!r}: use A-E or {', '.join(CATEGORY_NAMES.values())}"
                    ) from None
                add(SUBTYPES[cat])
        if tests_arg:
            for part in (s.strip() for s in tests_arg.split(",") if s.strip()):
                if part.upper() in self.tests:
                    add([part.upper()])
                    continue
                try:
                    add(SUBTYPES[category_of(part)])
                except ValueError:
                    raise UsageError(
                        f"--tests {part!r}: unknown; one of {', '.join(self.tests)} or a category A-E"
                    ) from None
        if not chosen:
            return list(self.tests)
        return [t for t in self.tests if t in chosen]  # canonical order

    def partial_streams(self, tests: list[str]) -> list[tuple[str, list[str]]]:
        """A category some but not all of whose sub-types are selected: its trials are drawn conditioned on
        being one of those (`--tests E2 --trials 2` makes 2 E2 trials; generator/streams.py)."""
        out = []
        for cat in "ABCDE":
            asked = [t for t in SUBTYPES[cat] if t in tests]
            if asked and len(asked) < len(SUBTYPES[cat]):
                out.append((CATEGORY_NAMES[cat].capitalize(), asked))
        return out

    # ----------------------------------------------------------------- manifest / HDF5

    def entry(self, job: Job, p: Params, scene: Scene) -> dict:
        m = self.module(job.test)
        prompt = {"kind": "plausibility", "text": "", "answer": "yes" if job.condition == "expected" else "no"}
        prompt["text"] = self.question_text(job.test, p, prompt)
        return {
            "category": m.CATEGORY,
            "subtype": job.test,
            "split": split_of(job.seed),
            "labels": m.labels(scene, p),
            "prompts": [prompt],
            "description": m.describe(scene, p, job.condition),
        }

    def question_text(self, test: str, p: Params, prompt: dict) -> str:
        """The plausibility prompt of `test`'s category (the same for every video of the category)."""
        category = category_of(test)
        return prompts.PROMPT.format(assumption=prompts.ASSUMPTION[category], observation=prompts.OBSERVATION[category])

    def extra_groups(self, job: Job, p: Params, scene: Scene, entry: dict) -> dict:
        return {"labels": entry["labels"]}


if TYPE_CHECKING:  # mypy holds every category module to the contract (load_suite checks the same at run time)
    from voebench.scenes.avoe import a_support, b_occlusion, c_containment, d_collision, e_barrier

    _MODULES: tuple[CategoryModule, ...] = (a_support, b_occlusion, c_containment, d_collision, e_barrier)
