"""Refuse, before anything is written, a run whose settings leave a test (almost) no valid draw.

A trial is redrawn until a draw passes every check (`generator/trial.py`), which keeps the stimuli valid under
any setting. But when a user's settings leave a test's space nearly empty (a ball too big for its apparatus, a
video too short for the event), redrawing would only burn time and end in failed trials. So each selected test is
*probed* first: its trials' first draws (indices 0, 1, ...) are built and checked, states only, until
PROBE_ENOUGH are valid or PROBE_DRAWS were tried, for each value of the test's balanced leaves separately (a Level 1
label is kept by every redraw, so a label no draw can show would leave its trials unmakeable). Under
MIN_ACCEPTANCE valid, the run is refused with one line
that names the most common reason, the parameters it involves, and which of the user's own changes (an override,
the length, the frame rate), undone alone, would make the test work.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import traceback
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING

from voebench.errors import GeneratorBug, UsageError
from voebench.generator.config import RunConfig, effective_space
from voebench.generator.params import Balanced
from voebench.generator.suite import Timing
from voebench.generator.trial import Rejection, Trial, check_draw, draw, first_trial

if TYPE_CHECKING:
    from voebench.generator.suite import Suite

PROBE_DRAWS = 40
PROBE_ENOUGH = 2  # valid draws after which a test counts as feasible (most tests: after their first two draws)
#: A balanced leaf (a Level 1 label) cycles with the trial index and is kept by every redraw, so each of its values
#: must be feasible on its own: the rule above applies to each value's draws separately.
MIN_ACCEPTANCE = 0.05
#: AVoE sub-types take the category's trials whose first draw shows them: scan this many indices at most
PROBE_SCAN = 2000


@dataclass
class Probe:
    test: str
    draws: int = 0
    accepted: int = 0
    rejections: list = field(default_factory=list)
    rejected: dict = field(default_factory=dict)  # trial index -> the Rejection of its first draw
    #: balanced-leaf values ("side=right") -> [draws, accepted], and their rejections
    groups: dict = field(default_factory=dict)
    group_rejections: dict = field(default_factory=dict)

    @property
    def acceptance(self) -> float:
        return self.accepted / self.draws if self.draws else 1.0

    @property
    def dead_groups(self) -> list[str]:
        """Balanced-leaf values ("" when the test has none) under MIN_ACCEPTANCE after PROBE_DRAWS draws."""
        return [g for g, (n, ok) in self.groups.items() if n >= PROBE_DRAWS and ok / n < MIN_ACCEPTANCE]

    def settled(self) -> bool:
        """Every value seen has PROBE_ENOUGH valid draws, or PROBE_DRAWS draws."""
        return bool(self.groups) and all(ok >= PROBE_ENOUGH or n >= PROBE_DRAWS for n, ok in self.groups.values())

    @property
    def feasible(self) -> bool:
        return not self.dead_groups


@dataclass
class Probes:
    by_test: dict = field(default_factory=dict)

    def known_rejection(self, trial: Trial) -> Rejection | None:
        """The probe's rejection of the trial's first draw, if it made one: the trial then starts at its second
        draw (and records the same rejection, so its files are the same either way)."""
        probe = self.by_test.get(trial.test)
        return probe.rejected.get(trial.index) if probe is not None else None


def probe_test(suite: Suite, test: str, cfg: RunConfig, overrides: dict | None = None, timing=None) -> Probe:
    """Check first draws of `test` (states only) until, for each value of its balanced leaves (its labels),
    PROBE_ENOUGH pass or PROBE_DRAWS were tried. `overrides` (a remedy: the run's with one undone) replace the
    run's, whose space was resolved once (`RunConfig.space`)."""
    if timing is not None:
        cfg = replace(cfg, seconds=timing.seconds, fps=timing.fps)
    space = cfg.space(suite, test) if overrides is None else effective_space(suite, test, overrides)
    balanced = [k for k, leaf in space.leaves().items() if isinstance(leaf, Balanced)]
    probe = Probe(test)
    workdir = tempfile.mkdtemp(prefix="voebench-probe-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    try:
        for index in range(PROBE_SCAN):
            if probe.settled() or probe.dead_groups or probe.draws >= PROBE_DRAWS * max(1, len(probe.groups)):
                break
            trial = first_trial(suite, test, space, cfg, index)
            if not trial.conditions:
                continue  # another sub-type's trial
            probe.draws += 1
            p = draw(suite, space, trial, 0)
            label = ",".join(f"{k}={_at(p, k)}" for k in balanced)
            group = probe.groups.setdefault(label, [0, 0])
            group[0] += 1
            try:
                _, _, rejection = check_draw(suite, trial, p, cfg, space, 0, workdir)
            except Exception as e:  # noqa: BLE001 (any error building a probe trial is re-raised as a GeneratorBug)
                raise GeneratorBug(
                    f"{suite.name}/{test}: building trial {index} failed with {type(e).__name__}: {e}",
                    traceback.format_exc(),
                ) from None
            if rejection is None:
                probe.accepted += 1
                group[1] += 1
            else:
                probe.rejections.append(rejection)
                probe.rejected[index] = rejection
                probe.group_rejections.setdefault(label, []).append(rejection)
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return probe


def _at(p, key: str):
    for part in key.split("."):
        p = p[part]
    return p


def check_feasible(suite: Suite, cfg: RunConfig) -> Probes:
    """Probe every selected test; raise UsageError (one line) for the first infeasible one."""
    probes = Probes()
    for test in cfg.tests:
        probe = probe_test(suite, test, cfg)
        probes.by_test[test] = probe
        if not probe.feasible:
            raise UsageError(refusal(suite, test, cfg, probe))
    return probes


def refusal(suite: Suite, test: str, cfg: RunConfig, probe: Probe) -> str:
    dead = [g for g in probe.dead_groups if g] if probe.accepted else []  # (nothing valid: say so for the test)
    rejections = probe.group_rejections[dead[0]] if dead else probe.rejections
    kind, n = Counter(r.kind for r in rejections).most_common(1)[0]
    example: Rejection = next(r for r in rejections if r.kind == kind)
    keys = sorted({k for r in rejections for k in r.keys})
    if dead:  # a balanced value (a Level 1 label) that no draw can show: its trials could never be made
        drawn = probe.groups[dead[0]][0]
        head = f"{suite.name}/{test}: no draw with {dead[0]} can be honoured with these settings (0 of {drawn}"
    else:
        head = (
            f"{suite.name}/{test}: only {probe.accepted} of {probe.draws} draws can be honoured with these settings ("
        )
    msg = (
        f"{head}most often {kind}, {n}x: {example.reason}"
        if not dead
        else f"{head}; most often {kind}: {example.reason}"
    )
    msg += f"; involves {', '.join(keys)})" if keys else ")"
    fixes = remedies(suite, test, cfg)
    msg += "; it works with " + " or ".join(fixes) if fixes else "; no single change of yours undone makes it work"
    return msg


def remedies(suite: Suite, test: str, cfg: RunConfig) -> list[str]:
    """Each of the user's own changes to this test (an override, the length, the frame rate), undone alone,
    that would make the test feasible, as "KEY at its default VALUE (a of b draws valid)"."""
    out = []
    overrides = cfg.overrides.get(test, {})
    default_leaves = suite.space(test).leaves()
    for key in overrides:
        rest = {test: {k: v for k, v in overrides.items() if k != key}}
        probe = probe_test(suite, test, cfg, overrides=rest)
        if probe.feasible:
            leaf = default_leaves[key]
            value = leaf.describe() if hasattr(leaf, "describe") else leaf
            out.append(f"{key} at its default {value} ({probe.accepted} of {probe.draws} draws valid)")
    # the length or the frame rate alone first (the smallest change that works), then both
    default = suite.default_timing
    tried = []
    for seconds, fps in ((default.seconds, cfg.fps), (cfg.seconds, default.fps), (default.seconds, default.fps)):
        if (seconds, fps) == (cfg.seconds, cfg.fps) or (seconds, fps) in tried:
            continue
        tried.append((seconds, fps))
        probe = probe_test(suite, test, cfg, timing=Timing(seconds, fps))
        if probe.feasible:
            flags = [
                f"--{name} {v:g}"
                for name, v, mine in (("seconds", seconds, cfg.seconds), ("fps", fps, cfg.fps))
                if v != mine
            ]
            out.append(f"{' '.join(flags)} ({probe.accepted} of {probe.draws} draws valid)")
            break
    width, height = suite.default_resolution
    if (cfg.width, cfg.height) != (width, height):
        probe = probe_test(suite, test, replace(cfg, width=width, height=height))
        if probe.feasible:
            out.append(f"--resolution {width}x{height} ({probe.accepted} of {probe.draws} draws valid)")
    return out
