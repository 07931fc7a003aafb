"""`voebench preview DIR`: one PNG contact sheet per test, so a person can check the stimuli at a glance.

Paired suites (Level 2, AVoE): each trial is two rows, its plausible/expected video above its implausible/
surprising one, over the same frames, labelled with the condition and the recorded violation (kind, object,
window, hidden or not). Level 1: one row per video, labelled with its true label. Columns are evenly spaced
frames, always including the first and the last and, where a trial has a violation, frames inside its window
(marked in red). Every cell shows its frame number. Videos without an mp4 (states-only sets) are drawn from
their segmentation when there is one.

Sheets go to DIR/preview/<suite>__<test>.png (or --out).
"""

from __future__ import annotations

import os
import sys
from collections import defaultdict

import numpy as np

MIN_CELL_WIDTH = 160  # px: tiny test renders are upscaled (by a whole factor) to at least this width
LABEL_WIDTH = 190  # px: the column of row labels
TITLE_HEIGHT = 22  # px
ROW_GAP = 2  # px between the two rows of a pair (and between Level 1 rows)
GROUP_GAP = 8  # px between trials
BACKGROUND = (24, 24, 24)
TEXT = (235, 235, 235)
WINDOW_MARK = (230, 40, 40)
PLAUSIBLE_FIRST = {"plausible": 0, "expected": 0, "implausible": 1, "surprising": 1}


def _font(size: int):
    from PIL import ImageFont

    for name in ("DejaVuSans.ttf", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"):
        try:
            return ImageFont.truetype(name, size)
        except OSError:
            continue
    try:
        return ImageFont.load_default(size)
    except TypeError:  # Pillow < 10.1
        return ImageFont.load_default()


def pick_frames(n_frames: int, count: int, window: tuple[int, int] | None = None) -> list[int]:
    """`count` frame indices, evenly spaced from the first to the last; with a violation window, one or two
    of the inner columns move into the window (its first frame, and its last if it spans more than one)."""
    count = max(1, min(count, n_frames))
    frames = sorted({int(round(x)) for x in np.linspace(0, n_frames - 1, count)})
    if window is None or count < 3:
        return frames
    first, last = (int(np.clip(w, 0, n_frames - 1)) for w in window)
    wanted = [first] if last <= first + 1 or count < 4 else [first, (first + last) // 2 if last - first > 8 else last]
    inner = [f for f in frames if 0 < f < n_frames - 1]
    for w in wanted:
        if w in frames:
            continue
        candidates = [f for f in inner if f not in wanted]
        if not candidates:
            break
        nearest = min(candidates, key=lambda f: abs(f - w))
        frames[frames.index(nearest)] = w
        inner.remove(nearest)
    return sorted(set(frames))


def read_frames(path: str, wanted: list[int]) -> dict[int, np.ndarray]:
    """The wanted frames of an mp4, decoding it once front to back without keeping the rest."""
    import imageio_ffmpeg

    want = set(wanted)
    out = {}
    reader = imageio_ffmpeg.read_frames(path)
    meta = next(reader)
    w, h = meta["size"]
    try:
        for i, buf in enumerate(reader):
            if i in want:
                out[i] = np.frombuffer(buf, np.uint8).reshape(h, w, 3).copy()
            if len(out) == len(want) or i >= max(want):
                break
    finally:
        reader.close()
    return out


def _segmentation_frames(h5: str, wanted: list[int]) -> dict[int, np.ndarray]:
    """False-colour frames from the HDF5 segmentation (for sets rendered without rgb)."""
    import h5py

    out: dict[int, np.ndarray] = {}
    with h5py.File(h5, "r") as f:
        if "segmentation" not in f:
            return out
        seg = f["segmentation"]
        rng = np.random.default_rng(0)
        palette = np.r_[[[0, 0, 0]], rng.integers(60, 255, (4095, 3))]  # id 0 (background) black
        for t in wanted:
            if 0 <= t < seg.shape[0]:
                out[t] = palette[np.minimum(seg[t], len(palette) - 1)].astype(np.uint8)
    return out


def video_frames(out_dir: str, entry: dict, wanted: list[int]) -> dict[int, np.ndarray]:
    if entry.get("video"):
        path = os.path.join(out_dir, entry["video"])
        if os.path.exists(path):
            try:
                return read_frames(path, wanted)
            except Exception:  # noqa: BLE001 (a broken mp4, whatever the decoder raises: fall back to the ground truth)
                pass
    h5 = os.path.join(out_dir, entry["states"])
    return _segmentation_frames(h5, wanted) if os.path.exists(h5) else {}


def _violation_text(v: dict | None) -> str:
    if not v:
        return ""
    hidden = ", hidden" if v.get("hidden") else ""
    return f"{v.get('kind')} of {v.get('object')}\nframes {v.get('first_frame')}-{v.get('last_frame')}{hidden}"


def sheet_layout(width: int, height: int, n_rows: int, n_groups: int, n_cols: int) -> tuple[int, int, int, int]:
    """(sheet width, sheet height, cell width, cell height) for videos of width x height."""
    scale = max(1, -(-MIN_CELL_WIDTH // width))
    cw, ch = width * scale, height * scale
    rows_h = n_rows * ch + (n_rows - n_groups) * ROW_GAP + max(0, n_groups - 1) * GROUP_GAP
    return LABEL_WIDTH + n_cols * (cw + ROW_GAP), TITLE_HEIGHT + rows_h + ROW_GAP, cw, ch


def make_sheet(out_dir: str, suite: str, test: str, groups: list[list[dict]], n_cols: int):
    """One contact sheet (a PIL image): `groups` are trials, each a list of its videos' manifest entries."""
    from PIL import Image, ImageDraw

    first = groups[0][0]
    W, H = int(first["width"]), int(first["height"])
    n_rows = sum(len(g) for g in groups)
    sw, sh, cw, ch = sheet_layout(W, H, n_rows, len(groups), n_cols)
    img = Image.new("RGB", (sw, sh), BACKGROUND)
    draw = ImageDraw.Draw(img)
    font, small = _font(13), _font(10)
    n_videos = n_rows
    title = f"{suite}/{test}: {n_videos} videos" + (f" ({len(groups)} trials)" if len(groups) != n_rows else "")
    draw.text((6, 4), title, fill=TEXT, font=font)
    y = TITLE_HEIGHT
    for gi, group in enumerate(groups):
        viol = next((e.get("violation") for e in group if e.get("violation")), None)
        window = (viol["first_frame"], viol["last_frame"]) if viol else None
        T = min(int(e["n_frames"]) for e in group)
        cols = pick_frames(T, n_cols, window)
        for entry in group:
            frames = video_frames(out_dir, entry, cols)
            label = f"{entry['index']:05d}  {entry['condition']}"
            if entry.get("violation"):
                label += "\n" + _violation_text(entry["violation"])
            elif entry.get("test_number"):
                label += f"\ntest {entry['test_number']}"
            draw.multiline_text((6, y + 4), label, fill=TEXT, font=small, spacing=2)
            for ci, t in enumerate(cols):
                x = LABEL_WIDTH + ci * (cw + ROW_GAP)
                if t in frames:
                    cell = Image.fromarray(frames[t]).resize((cw, ch), Image.Resampling.NEAREST)
                    img.paste(cell, (x, y))
                else:
                    draw.rectangle((x, y, x + cw - 1, y + ch - 1), fill=(70, 70, 70))
                    draw.text((x + 4, y + ch // 2 - 6), "no frame", fill=TEXT, font=small)
                inside = window is not None and window[0] <= t <= window[1]
                tag = f"{t}"
                bbox = draw.textbbox((x + 2, y + 1), tag, font=small)
                draw.rectangle(
                    (bbox[0] - 1, bbox[1] - 1, bbox[2] + 1, bbox[3] + 1), fill=WINDOW_MARK if inside else (0, 0, 0)
                )
                draw.text((x + 2, y + 1), tag, fill=TEXT, font=small)
                if inside and entry.get("violation"):
                    draw.rectangle((x, y, x + cw - 1, y + ch - 1), outline=WINDOW_MARK, width=2)
            y += ch + ROW_GAP
        y += GROUP_GAP - ROW_GAP if gi < len(groups) - 1 else 0
    return img


def plan(entries: list[dict], per_test: int) -> dict[tuple[str, str], list[list[dict]]]:
    """(suite, test) -> the trials to show: pairs (plausible first) for paired suites, single videos otherwise."""
    tests: defaultdict[tuple[str, str], defaultdict[str, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for e in entries:
        key = e.get("pair_id") or e["id"]
        tests[(e["suite"], e["test"])][key].append(e)
    out = {}
    for k, trials in tests.items():
        groups = [sorted(g, key=lambda e: PLAUSIBLE_FIRST.get(e["condition"], 2)) for g in trials.values()]
        groups.sort(key=lambda g: (-len(g), g[0]["index"]))  # complete pairs first, then by index
        chosen = groups[: max(1, per_test)]
        chosen.sort(key=lambda g: g[0]["index"])
        out[k] = chosen
    return out


def main(out_dir: str, out: str | None = None, per_test: int = 4, frames: int = 6, verbose: bool = True) -> int:
    from voebench.contract.manifest import read_manifest

    entries = read_manifest(os.path.join(out_dir, "manifest.jsonl"))
    folder = out or os.path.join(out_dir, "preview")
    os.makedirs(folder, exist_ok=True)
    written = 0
    for (suite, test), groups in sorted(plan(entries, per_test).items()):
        img = make_sheet(out_dir, suite, test, groups, max(1, frames))
        path = os.path.join(folder, f"{suite}__{test}.png")
        tmp = path + f".tmp-{os.getpid()}.png"
        img.save(tmp)
        os.replace(tmp, path)
        written += 1
        if verbose:
            print(f"{path}  ({img.width}x{img.height}, {sum(len(g) for g in groups)} videos)")
    if verbose:
        print(f"{written} contact sheet(s) in {folder}", file=sys.stderr)
    return 0 if written else 1
