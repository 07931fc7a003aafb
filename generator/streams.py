"""Tests that share one stream of trials, asked for in part: which of the stream's trials a run makes.

Some suites draw several tests from one stream of trials (AVoE: the sub-types of a category share the
category's trials, and trial *i* belongs to the sub-type its first draw shows; `Suite.trial_seed`). When a run
asks for every test of a stream, `--trials N` is the stream's first N trials, each made as the test it belongs
to (that is unchanged). When it asks for only some of them (`--tests E2`), taking the first N trials would leave
the asked tests only their share of N, or none (`--tests E2 --trials 2` used to make nothing). So for such a
*partial* stream the run makes the first N trials **of the asked tests**: the stream is scanned in index order
and a trial is kept when its first draw belongs to an asked test, until N are kept. That is the stream's trials
conditioned on belonging to the asked tests, in the proportions the stream has among them.

- A kept trial keeps its stream-wide index (and so its seed, id and bytes): `avoe/E2/00037` is the same trial
  whether a run asks for E2 alone or for the whole category, and runs of different selections into one folder
  agree on every trial they share. Indices of a test therefore have gaps.
- The scan reads first draws only (no building, no simulation) and depends on nothing but the base seed, the
  overrides and the selection, so the trials made are the same whatever the workers, shards or resumes.
- Refused up front (one line, nothing written): an asked test none of the stream's first SCAN_FIRST trials
  belongs to with the run's settings (an override that excludes it, e.g. `--set subtype=E1` with `--tests E2`),
  naming the override that, undone, would make it appear; and a request that needs stream indices past the
  5-digit id limit.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from voebench.errors import UsageError
from voebench.generator.limits import TRIALS_MAX

if TYPE_CHECKING:
    from collections.abc import Sequence

    from voebench.generator.config import RunConfig
    from voebench.generator.suite import Suite

#: an asked test none of whose stream's first SCAN_FIRST trials belongs to it cannot be had (the rarest AVoE
#: sub-type at the defaults, D2, is 11% of its category: 0 in 2000 has probability 0.89**2000, about 1e-101)
SCAN_FIRST = 2000


def trial_indices(cfg: RunConfig, suite: Suite) -> dict[str, Sequence[int]]:
    """For every selected test, the stream indices whose trials the run considers: `range(cfg.trials)` for a
    test whose whole stream is asked for (a trial of it is made if it belongs to the test), and for the tests of
    a partial stream the indices of the first `cfg.trials` trials that belong to one of them. Raises UsageError
    (one line) for an asked test that cannot be had, or for more trials than the stream holds within 5-digit
    indices."""
    out: dict[str, Sequence[int]] = {t: range(cfg.trials) for t in cfg.tests}
    for stream, tests in suite.partial_streams(list(cfg.tests)):
        out.update(_scan(cfg, suite, stream, tests))
    return out


def _belongs(cfg: RunConfig, suite: Suite, spaces: dict):
    from voebench.generator.trial import first_trial

    def belongs(test: str, index: int) -> bool:
        return bool(first_trial(suite, test, spaces[test], cfg, index).conditions)

    return belongs


def _scan(cfg: RunConfig, suite: Suite, stream: str, tests: list[str]) -> dict[str, list[int]]:
    """The first `cfg.trials` trials of `stream` that belong to one of `tests`, by test; each asked test is
    also looked for in the first SCAN_FIRST trials, so a test the settings exclude is refused, not left empty."""
    belongs = _belongs(cfg, suite, {t: cfg.space(suite, t) for t in tests})
    kept: dict[str, list[int]] = {t: [] for t in tests}
    seen = {t: False for t in tests}
    count = 0
    index = 0
    while count < cfg.trials or not all(seen.values()):
        if index >= SCAN_FIRST and not all(seen.values()):
            missing = next(t for t in tests if not seen[t])
            raise UsageError(_cannot_be_had(cfg, suite, stream, missing))
        if index >= TRIALS_MAX:
            raise UsageError(
                f"{suite.name}/{','.join(tests)}: only {count} of the first {TRIALS_MAX} {stream} trials (video "
                f"ids have a 5-digit index) are {' or '.join(tests)} trials with these settings; ask for at most "
                f"{count} with --videos-per-test"
            )
        for test in tests:
            if belongs(test, index):
                seen[test] = True
                if count < cfg.trials:
                    kept[test].append(index)
                    count += 1
        index += 1
    return kept


def _cannot_be_had(cfg: RunConfig, suite: Suite, stream: str, test: str) -> str:
    """The refusal of an asked test that none of its stream's first SCAN_FIRST trials belongs to, with each of
    the user's overrides of it that, undone alone, would make it appear."""
    from voebench.generator.config import effective_space

    msg = (
        f"{suite.name}/{test}: none of the first {SCAN_FIRST} {stream} trials belongs to {test} with these settings "
        f"(a {stream} trial's first draw decides which test it belongs to)"
    )
    overrides = cfg.overrides.get(test, {})
    fixes = []
    default_leaves = suite.space(test).leaves()
    for key in overrides:
        rest = {**cfg.overrides, test: {k: v for k, v in overrides.items() if k != key}}
        belongs = _belongs(cfg, suite, {test: effective_space(suite, test, rest)})
        if any(belongs(test, i) for i in range(SCAN_FIRST)):
            leaf = default_leaves[key]
            fixes.append(f"{key} at its default {leaf.describe() if hasattr(leaf, 'describe') else leaf}")
    if fixes:
        return f"{msg}; it can be had with " + " or ".join(fixes)
    return f"{msg}; no single override of yours undone makes it appear" if overrides else msg
