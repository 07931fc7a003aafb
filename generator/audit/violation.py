"""The violation checks of an implausible (surprising) video: its record agrees with its condition
(`check_violation_record`), the violation shows inside its window (`check_violation_present`), physics
findings inside the window and its aftermath are the designed violation (`outside_window`), a hidden
manipulation shows zero pixels (`check_hidden`), and the pair is identical before the onset (`check_pair`)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import numpy as np

from voebench.generator.audit.findings import Finding, fmt_frames, frame_list
from voebench.generator.solids import Track
from voebench.generator.audit.tolerances import (
    COLOR_TOL,
    EVENT_CHECKS,
    IMPLAUSIBLE_CONDITIONS,
    PAIR_TOL,
    REST_SPEED,
    WINDOW_SLACK,
)

if TYPE_CHECKING:
    from voebench.generator.audit.video import Video


def check_violation_record(v: Video) -> list[Finding]:
    """The condition and the `violation` group agree, and the record names an object and a valid window."""
    cond = v.condition
    viol = v.violation
    if cond in IMPLAUSIBLE_CONDITIONS:
        if viol is None:
            return [Finding("violation_record", "-", [], f"a {cond} video without a violation record")]
        problems = []
        if viol.get("object") not in v.tracks:
            problems.append(f"names object {viol.get('object')!r}, which is not in the scene")
        if not 0 <= viol["first_frame"] <= viol["last_frame"] < v.n_frames:
            problems.append(f"window {viol['first_frame']}-{viol['last_frame']} is outside 0-{v.n_frames - 1}")
        if not viol.get("principles"):
            problems.append("lists no principle")
        return (
            [Finding("violation_record", str(viol.get("object")), [], "violation record " + "; ".join(problems))]
            if problems
            else []
        )
    if viol is not None:
        return [
            Finding(
                "violation_record", str(viol.get("object")), [], f"a {cond or 'Level 1'} video with a violation record"
            )
        ]
    return []


def violation_objects(v: Video) -> list[str]:
    """The violation's object, plus any *replacement*: an object that appears inside the window where the
    violation object is at that moment (a shape change is written as one object vanishing and another,
    hidden until then, appearing in its place)."""
    viol = v.violation
    if viol is None or viol.get("object") not in v.tracks:
        return []
    name = viol["object"]
    out = [name]
    win = _window(viol, v.n_frames)
    main = v.tracks[name]
    for other, tr in v.tracks.items():
        if other == name:
            continue
        change = np.flatnonzero(tr.visible[1:] != tr.visible[:-1]) + 1
        if len(change) and win[change].all() and tr.visible[change[0]]:
            k = change[0]
            if np.linalg.norm(tr.position[k] - main.position[k]) <= max(main.shape.radius, tr.shape.radius):
                out.append(other)
    return out


def _window(viol: dict[str, Any], T: int, slack: int = WINDOW_SLACK) -> np.ndarray:
    w = np.zeros(T, bool)
    w[max(0, viol["first_frame"] - slack) : min(T, viol["last_frame"] + slack + 1)] = True
    return w


def _differs(a: Track, b: Track, frames=None, tol: float = PAIR_TOL) -> np.ndarray:
    """(T,) bool: the two tracks differ at frame t in pose, colour or visibility."""
    T = min(len(a.position), len(b.position))
    d = (
        (np.abs(a.position[:T] - b.position[:T]).max(axis=1) > tol)
        | (np.abs(a.quaternion[:T] - b.quaternion[:T]).max(axis=1) > tol)
        | (np.abs(a.color[:T] - b.color[:T]).max(axis=1) > COLOR_TOL)
        | (a.visible[:T] != b.visible[:T])
    )
    return d


def check_violation_present(v: Video, findings: list[Finding], twin: Video | None) -> list[Finding]:
    """The recorded violation shows in its window: its kind's signature (teleport: a jump; recolor: a colour
    change; vanish: not visible; freeze: at rest while a gravity/support/velocity check fails; any kind: the
    object differs from its plausible twin inside the window)."""
    viol = v.record
    name = viol["object"]
    tr = v.tracks[name]
    first, last = viol["first_frame"], viol["last_frame"]
    win = _window(viol, v.n_frames)
    kind = viol.get("kind", "")
    mine = [f for f in findings if f.object == name or f.other == name]
    in_win = lambda f, checks: f.check in checks and any(win[t] for t in f.frames)  # noqa: E731
    problems = []
    if kind == "teleport":
        if not any(in_win(f, ("no_teleport", "no_velocity_jump", "falls_when_unsupported")) for f in mine):
            problems.append("no jump in position inside the window")
    elif kind == "recolor":
        before = tr.color[first - 1] if first > 0 else None
        if before is None or np.abs(tr.color[first] - before).max() <= COLOR_TOL:
            problems.append(f"colour does not change at frame {first}")
    elif kind == "vanish":
        if tr.visible[first : last + 1].any():
            problems.append("still visible inside the window")
        elif first > 0 and not tr.visible[first - 1]:
            problems.append("already gone before the window")
    elif kind == "freeze":
        vel = np.linalg.norm(v.velocity(name)[first : max(first, last)], axis=1)
        if (vel > REST_SPEED).any():
            problems.append("moves inside its freeze window")
        if not any(in_win(f, ("falls_when_unsupported", "resting_supported", "no_velocity_jump")) for f in mine):
            problems.append("stopping there breaks no physics check (nothing hovers, stops dead or overhangs)")
    elif len(violation_objects(v)) > 1 or kind in ("reshape", "replace", "swap"):
        repl = violation_objects(v)[1:]
        if not repl:
            problems.append("no object takes its place inside the window")
        elif tr.visible[min(last + 1, v.n_frames - 1)] and last + 1 < v.n_frames:
            problems.append("still there after the window, beside its replacement")
        else:
            new = v.tracks[repl[0]].shape
            if (
                new.kind == tr.shape.kind
                and np.allclose(new.dims, tr.shape.dims)
                and np.allclose(v.tracks[repl[0]].color[last], tr.color[max(first - 1, 0)], atol=COLOR_TOL)
            ):
                problems.append(f"its replacement {repl[0]} has the same shape, size and colour")
    elif kind == "pass_through" and not any(in_win(f, ("no_interpenetration",)) for f in mine) and twin is None:
        problems.append("no overlap inside the window")
    if twin is not None and name in twin.tracks:
        d = _differs(tr, twin.tracks[name])
        if not d[first : last + 1].any():
            problems.append("identical to its plausible twin inside the window")
    elif twin is None and kind not in ("teleport", "recolor", "vanish", "freeze", "pass_through", "reshape"):
        problems.append(f"kind {kind!r} can only be checked against a plausible twin, and there is none")
    if problems:
        return [
            Finding(
                "violation_present",
                name,
                list(range(first, last + 1)),
                f"{kind} of {name} in frames {first}-{last}: " + "; ".join(problems),
            )
        ]
    return []


def aftermath(v: Video) -> np.ndarray:
    """(T,) frames after the window in which the violation object still holds the pose it had at the window's
    last frame: the violation's lasting result (a ball stopped in mid-air stays there when revealed)."""
    viol = v.record
    out = np.zeros(v.n_frames, bool)
    tr = v.tracks[viol["object"]]
    last = viol["last_frame"]
    for t in range(last + 1, v.n_frames):
        if (
            np.abs(tr.position[t] - tr.position[last]).max() > PAIR_TOL
            or np.abs(tr.quaternion[t] - tr.quaternion[last]).max() > PAIR_TOL
        ):
            break
        out[t] = True
    return out


def outside_window(v: Video, findings: list[Finding]) -> list[Finding]:
    """Drop the violation objects' findings inside the window (the designed violation) and in its aftermath
    (the object left as the violation left it); keep the rest."""
    names = set(violation_objects(v))
    if not names:
        return findings
    win = _window(v.record, v.n_frames) | aftermath(v)
    kept = []
    for f in findings:
        if f.object in names or f.other in names:
            frames = [t for t in f.frames if not win[t]]
            if not frames:
                continue
            f = Finding(f.check, f.object, frames, f.detail + " [outside the violation window]", f.other)
        kept.append(f)
    return kept


def manipulation_frames(v: Video, findings: list[Finding], twin: Video | None) -> list[int]:
    """The frames in which the manipulation happens: the window's first frame, and every frame near the window
    where a violation object has an *event* finding (a jump, an overlap, a colour or existence change) that its
    plausible twin does not have. States that follow (a ball revealed hovering, an object floating in view as
    designed) and motion both videos share are not the manipulation."""
    viol = v.record
    names = set(violation_objects(v))
    win = _window(viol, v.n_frames)
    shared = set()
    same = {}  # name -> (T,) the object moves the same way in both videos around frame t
    if twin is not None:
        shared = {(f.check, f.object, f.other, t) for f in twin.physics() for t in f.frames}
        for n in names:
            if n in twin.tracks:
                d = v.tracks[n].position - twin.tracks[n].position
                step = np.abs(np.diff(d, axis=0)).max(axis=1) <= PAIR_TOL
                same[n] = np.r_[True, step] & np.r_[step, True]
    frames = {viol["first_frame"]}
    for f in findings:
        if f.check in EVENT_CHECKS and (f.object in names or f.other in names):
            n = f.object if f.object in names else (f.other or "")  # (one of them is in names)
            frames |= {
                t
                for t in f.frames
                if win[t] and not ((f.check, f.object, f.other, t) in shared and n in same and same[n][t])
            }
    return sorted(frames)


def check_hidden(v: Video, findings: list[Finding] | None = None, twin: Video | None = None) -> list[Finding]:
    """A manipulation recorded as hidden happens while the object (and any replacement) has zero visible
    pixels: at the window's first frame and in every frame of the manipulation's events (see
    `manipulation_frames`)."""
    viol = v.violation
    if not viol or not viol.get("hidden") or viol.get("object") not in v.tracks:
        return []
    frames = manipulation_frames(v, v.physics() if findings is None else findings, twin)
    out = []
    for name in violation_objects(v):
        px = v.tracks[name].visible_pixels[frames]
        if (px < 0).any():
            continue  # not measured (states-only set): reported as skipped
        bad = [t for t, n in zip(frames, px) if n > 0]
        if bad:
            out.append(
                Finding(
                    "hidden_when_manipulated",
                    name,
                    bad,
                    f"hidden {viol['kind']} of {viol['object']}, but {name} shows up to {px.max()} pixels "
                    f"at manipulation frames {fmt_frames(bad)}",
                )
            )
    return out


def check_pair(v: Video, twin: Video, onset: int) -> list[Finding]:
    """Both videos of a trial are identical before the violation's first frame: the same objects (shape, role,
    size), poses, colours, visibility, visible pixel counts and camera."""
    out = []
    if set(v.tracks) != set(twin.tracks):
        diff = sorted(set(v.tracks) ^ set(twin.tracks))
        # an object only one video has must not exist before the onset
        for n in diff:
            tr = v.tracks[n] if n in v.tracks else twin.tracks[n]
            if tr.visible[:onset].any():
                out.append(
                    Finding(
                        "pair_identical_before_onset",
                        n,
                        frame_list(tr.visible[:onset]),
                        f"{n} exists before the onset in only one video of the pair",
                    )
                )
    for n in set(v.tracks) & set(twin.tracks):
        a, b = v.tracks[n], twin.tracks[n]
        if (
            a.shape.kind != b.shape.kind
            or not np.allclose(a.shape.dims, b.shape.dims, atol=PAIR_TOL)
            or a.role != b.role
        ):
            out.append(
                Finding("pair_identical_before_onset", n, [], f"{n} has another shape, size or role in its twin")
            )
            continue
        d = _differs(a, b)[:onset]
        if a.visible_pixels.min() >= 0 and b.visible_pixels.min() >= 0:
            d |= a.visible_pixels[:onset] != b.visible_pixels[:onset]
        if d.any():
            frames = frame_list(d)
            out.append(
                Finding(
                    "pair_identical_before_onset",
                    n,
                    frames,
                    f"{n} differs from its twin before the onset (frame {onset}) at frames {fmt_frames(frames)}",
                )
            )
    ea, eb = v.camera.get("extrinsics"), twin.camera.get("extrinsics")
    if ea is not None and eb is not None and not np.allclose(ea[:onset], eb[:onset], atol=PAIR_TOL):
        out.append(Finding("pair_identical_before_onset", "camera", [], "the camera differs before the onset"))
    return out
