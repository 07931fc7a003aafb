"""The audit of a sweep as a whole (issue 24): the larger a trial's level, the more its video visibly differs from
the plausible twin after the onset (`visible_difference_grows`).

The visible difference of a violated video is the share of pixels, averaged over the frames from the onset on,
that differ from the plausible twin's: in the RGB video where there is one (a channel differs by more than
PIXEL_TOL, above the codec's noise), else in the segmentation (another object, or none, at the pixel). A video
without pixels (states only) skips the check. The levels of one trial must give non-decreasing differences, up to
SLACK (relative, plus SLACK_PIXELS a frame): a violation that has already moved the object clear of its twin's
place shows no more pixels at a larger level (the difference saturates), and the codec's noise varies a little
between videos.
"""

from __future__ import annotations

import os

import numpy as np

from voebench.generator.audit.findings import Finding

#: 8-bit levels: H.264 at the generator's quality moves a flat colour by a few levels between two encodes
PIXEL_TOL = 24
#: a larger level may show this share less than a smaller one (codec noise where the difference has saturated:
#: t08 at 160x120 measured 0.00059 then 0.00058 of the frame for 20 and 30 deg), and SLACK_PIXELS per frame
SLACK = 0.1
SLACK_PIXELS = 2
CHECK = "visible_difference_grows"


def _rgb(path: str) -> np.ndarray:
    from voebench.generator.io.video import read_video

    return read_video(path)


def _segmentation(path: str) -> np.ndarray | None:
    import h5py

    with h5py.File(path, "r") as f:
        if "_unique/segmentation" not in f:
            return None
        return f["_unique/segmentation"][()][f["_unique/frame_to_unique"][()]]


def _frames(out_dir: str, entry: dict) -> tuple[str, np.ndarray] | None:
    video = entry.get("video")
    if video and os.path.exists(os.path.join(out_dir, video)):
        return "rgb", _rgb(os.path.join(out_dir, video))
    seg = _segmentation(os.path.join(out_dir, entry["states"]))
    return None if seg is None else ("segmentation", seg)


def difference(a: np.ndarray, b: np.ndarray, kind: str, onset: int) -> float:
    """The share of pixels that differ between two videos' frames from `onset` on."""
    a, b = a[onset:], b[onset:]
    n = min(len(a), len(b))
    if n == 0:
        return 0.0
    a, b = a[:n], b[:n]
    if kind == "rgb":
        differs = (np.abs(a.astype(np.int16) - b.astype(np.int16)) > PIXEL_TOL).any(axis=-1)
    else:
        differs = a != b
    return float(differs.mean())


def sweep_findings(out_dir: str, group: list[dict]) -> dict[str, list[Finding]]:
    """video id -> findings of the sweep check, for the violated videos of one swept trial (empty dict: not a
    sweep, or no pixels to compare)."""
    swept = sorted((e for e in group if e.get("sweep_rank")), key=lambda e: e["sweep_rank"])
    plausible = [e for e in group if not e.get("sweep_rank") and e.get("violation") is None]
    if len(swept) < 2 or len(plausible) != 1:
        return {}
    base = _frames(out_dir, plausible[0])
    if base is None:
        return {}
    kind, ref = base
    out: dict[str, list[Finding]] = {}
    previous, previous_level = -1.0, None
    for e in swept:
        got = _frames(out_dir, e)
        if got is None or got[0] != kind:
            return {}
        onset = int(e["violation"]["first_frame"])
        d = difference(got[1], ref, kind, onset)
        if d < previous * (1 - SLACK) - SLACK_PIXELS / ref[0].shape[0] / ref[0].shape[1]:
            out[e["id"]] = [
                Finding(
                    CHECK,
                    str(e["violation"]["object"]),
                    [],
                    f"level {e['violation_level']:g} {e.get('violation_unit', '')} shows {d:.4f} of the pixels "
                    f"different from the plausible twin ({kind}), less than level {previous_level:g} ({previous:.4f})",
                )
            ]
        else:
            out[e["id"]] = []
        previous, previous_level = max(previous, d), e["violation_level"]
    return out
