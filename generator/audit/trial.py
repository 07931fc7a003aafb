"""Auditing one trial: `audit_video` runs every check that applies to one video (given its twin), and
`audit_trial` audits the videos of one trial together from their manifest entries and HDF5 paths. The
latter is what the generation gate calls on a trial's temporary files before keeping them
(`failure_reason` gives the one line it records for a redrawn trial); `audit_set` (report.py) calls it for
every trial of a folder."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass

from voebench.generator.audit.findings import Finding
from voebench.generator.audit.levels import check_level
from voebench.generator.audit.tolerances import IMPLAUSIBLE_CONDITIONS, PHYSICS_CHECKS
from voebench.generator.audit.video import Video
from voebench.generator.audit.violation import (
    check_hidden,
    check_pair,
    check_violation_present,
    check_violation_record,
    outside_window,
)


@dataclass
class VideoResult:
    """The audit of one video: its findings (empty: passed), the checks that applied, and those skipped (why)."""

    id: str
    suite: str
    test: str
    condition: str
    findings: list
    skipped: list  # (check, reason)
    checks: tuple

    @property
    def ok(self) -> bool:
        return not self.findings

    def failed_checks(self) -> list[str]:
        return sorted({f.check for f in self.findings})

    def as_dict(self) -> dict:
        by = defaultdict(list)
        for f in self.findings:
            by[f.check].append({"object": f.object, "other": f.other, "frames": f.frames, "detail": f.detail})
        skipped = dict(self.skipped)
        checks = {
            c: {"ok": c not in by, "skipped": c in skipped, "reason": skipped.get(c), "findings": by.get(c, [])}
            for c in self.checks
        }
        return {
            "id": self.id,
            "suite": self.suite,
            "test": self.test,
            "condition": self.condition,
            "ok": self.ok,
            "checks": checks,
        }


def audit_video(v: Video, twin: Video | None = None, twin_missing_reason: str | None = None) -> VideoResult:
    """All checks of one video. `twin`: the other video of its pair (for implausible videos: the plausible one)."""
    a = v.attrs
    cond = v.condition
    skipped = []
    findings = check_violation_record(v)
    physics = v.physics()
    checks: tuple[str, ...] = PHYSICS_CHECKS + ("violation_record",)
    paired = bool(a.get("pair_id"))
    if cond in IMPLAUSIBLE_CONDITIONS and v.violation is not None and not findings:
        checks = checks + ("violation_present",)
        findings += check_violation_present(v, physics, twin)
        if v.violation.get("level") is not None:  # a graded violation: its size, measured against its twin
            checks = checks + ("violation_level",)
            if twin is None:
                skipped.append(("violation_level", twin_missing_reason or "its twin is not in the set"))
            findings += check_level(v, twin)
        findings += outside_window(v, physics)
        if v.violation.get("hidden"):  # (a violation meant to be seen has nothing to hide)
            checks = checks + ("hidden_when_manipulated",)
            vp = v.tracks[v.violation["object"]].visible_pixels
            if (vp < 0).any():
                skipped.append(("hidden_when_manipulated", "visible pixels not measured (no segmentation pass)"))
            findings += check_hidden(v, physics, twin)
    else:
        findings += physics
    if paired:
        checks = checks + ("pair_identical_before_onset",)
        if twin is None:
            skipped.append(("pair_identical_before_onset", twin_missing_reason or "its twin is not in the set"))
        else:
            viol = v.violation if v.violation is not None else twin.violation
            if viol is None:
                findings.append(
                    Finding("pair_identical_before_onset", "-", [], "neither video of the pair records a violation")
                )
            else:
                findings += check_pair(v, twin, int(viol["first_frame"]))
    return VideoResult(str(a.get("id")), str(a.get("suite")), str(a.get("test")), cond, findings, skipped, checks)


def audit_trial(videos: list[tuple[dict, str]]) -> list[VideoResult]:
    """Audit the videos of ONE trial (a pair, or a single video) together, so that each sees its twin.
    `videos`: (manifest entry, path of its HDF5 file) per video; the path may be any file (a temporary one
    before the gate keeps it), no folder or manifest file is read. Works on states-only files (no
    segmentation: the hidden-manipulation check is then reported as skipped) and on rendered ones. An
    unreadable file gives a failed `readable` check rather than an exception. Results in the given order."""
    results, loaded = [], []
    for i, (entry, path) in enumerate(videos):
        try:
            loaded.append((i, entry, Video(path, entry)))
        except Exception as exc:  # noqa: BLE001 (any error reading a file is a failed video, not a crash)
            name = entry.get("states") or path
            results.append(
                (
                    i,
                    VideoResult(
                        str(entry.get("id")),
                        str(entry.get("suite")),
                        str(entry.get("test")),
                        entry.get("condition", ""),
                        [Finding("readable", "-", [], f"{name}: {type(exc).__name__}: {exc}")],
                        [],
                        ("readable",),
                    ),
                )
            )
    for i, entry, v in loaded:
        results.append((i, audit_video(v, *_twin(v, [w for j, _, w in loaded if j != i], entry))))
    return [r for _, r in sorted(results, key=lambda ir: ir[0])]


def _twin(v: Video, others: list[Video], entry: dict) -> tuple[Video | None, str | None]:
    """The video `v` is compared with: the other one of a pair; in a sweep (one plausible, several violated
    videos) a violated video's plausible twin, and the plausible video's first violated one."""
    if len(others) == 1:
        return others[0], None
    if not others:
        return None, ("only one video of this trial was rendered" if entry.get("pair_id") else None)
    plausible = [w for w in others if w.condition not in IMPLAUSIBLE_CONDITIONS]
    if v.condition in IMPLAUSIBLE_CONDITIONS:
        return (plausible[0], None) if len(plausible) == 1 else (None, "the trial has no single plausible video")
    return (None, "the trial has no violated video") if plausible else (others[0], None)


def failure_reason(results: list[VideoResult]) -> str | None:
    """One line for a trial that failed its audit (None if it passed): the first failing video's id, the
    failed check and its first finding's detail, e.g. `grasp-l2-...-00003: no_teleport: ball jumps ...`."""
    for r in results:
        if r.findings:
            f = r.findings[0]
            return " ".join(f"{r.id}: {f.check}: {f.detail}".split())
    return None
