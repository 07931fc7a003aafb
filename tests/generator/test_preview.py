"""`voebench preview`: one contact sheet per test, of the expected size, showing the videos' own frames."""

from __future__ import annotations

import os

import numpy as np
from PIL import Image

from voebench.generator import edits, preview
from voebench.generator.audit import read_manifest
from voebench.generator.io.video import read_video


def test_pick_frames_spans_the_video_and_enters_the_window():
    assert preview.pick_frames(500, 6) == [0, 100, 200, 299, 399, 499]
    cols = preview.pick_frames(500, 6, window=(233, 234))
    assert cols[0] == 0 and cols[-1] == 499 and 233 in cols and len(cols) == 6
    cols = preview.pick_frames(500, 6, window=(118, 499))
    assert 118 in cols and cols[-1] == 499
    assert preview.pick_frames(10, 20) == list(range(10))  # never more columns than frames


def test_level1_sheets(level1_set, tmp_path):
    from conftest import voebench

    out = tmp_path / "sheets"
    p = voebench("preview", level1_set, "--out", out, "--frames", 5)
    names = sorted(os.listdir(out))
    assert names == [
        f"grasp-l1__{t}.png" for t in ("color", "directionality", "movement", "ordering", "relational", "shape")
    ], p.stdout
    # 64x48 videos are upscaled x3 to 192x144 cells; 5 columns; 2 videos (one row each)
    w, h, cw, ch = preview.sheet_layout(64, 48, n_rows=2, n_groups=2, n_cols=5)
    assert (cw, ch) == (192, 144)
    assert (w, h) == (
        preview.LABEL_WIDTH + 5 * (192 + preview.ROW_GAP),
        preview.TITLE_HEIGHT + 2 * 144 + preview.GROUP_GAP + preview.ROW_GAP,
    )
    img = np.asarray(Image.open(out / "grasp-l1__shape.png").convert("RGB"))
    assert img.shape == (h, w, 3)
    # the first cell is the video's first frame, upscaled (away from the frame-number tag in its corner)
    first = read_video(os.path.join(level1_set, "grasp-l1/shape/00000.mp4"))[0]
    cell = img[preview.TITLE_HEIGHT : preview.TITLE_HEIGHT + ch, preview.LABEL_WIDTH : preview.LABEL_WIDTH + cw]
    up = np.kron(first, np.ones((3, 3, 1), np.uint8))
    assert np.array_equal(cell[30:], up[30:])


def test_paired_sheet_rows_and_window(tmp_path):
    from test_audit import hidden_teleport, pair, scene, write

    for i in range(3):
        pair(tmp_path, "teleport", i, hidden_teleport, {"ball": range(19, 21)})
    write(tmp_path, scene(), "teleport", 3, "plausible")  # a trial whose implausible video is missing
    assert preview.main(str(tmp_path), per_test=2, frames=6, verbose=False) == 0
    img = Image.open(tmp_path / "preview" / "grasp-l2__teleport.png")
    # 16x12 videos (x10 -> 160x120 cells), two complete trials of two rows each, 6 columns
    w, h, cw, ch = preview.sheet_layout(16, 12, n_rows=4, n_groups=2, n_cols=6)
    assert img.size == (w, h) and (cw, ch) == (160, 120)
    groups = preview.plan(read_manifest(str(tmp_path / "manifest.jsonl")), per_test=2)[("grasp-l2", "teleport")]
    assert [[e["condition"] for e in g] for g in groups] == [["plausible", "implausible"]] * 2
    # the violation's frame has a red frame-number tag in the implausible row
    cols = preview.pick_frames(50, 6, (19, 20))
    assert 19 in cols
    x = preview.LABEL_WIDTH + cols.index(19) * (cw + preview.ROW_GAP)
    y = preview.TITLE_HEIGHT + ch + preview.ROW_GAP  # second row: the implausible video
    tag = np.asarray(img.convert("RGB"))[y + 3, x + 3]
    assert tuple(tag) == preview.WINDOW_MARK


def test_unpaired_edit_without_video_uses_segmentation(tmp_path):
    from test_audit import scene, write

    s = scene()
    edits.recolor(s, "cube", 25, (1, 1, 0), ["unchangeableness"])
    write(tmp_path, s, "solo", 0, "implausible")
    assert preview.main(str(tmp_path), verbose=False) == 0
    img = np.asarray(Image.open(tmp_path / "preview" / "grasp-l2__solo.png").convert("RGB"))
    # the made-up segmentation puts each object's two pixels in the first two rows (x10: 20 px)
    cell = img[preview.TITLE_HEIGHT : preview.TITLE_HEIGHT + 20, preview.LABEL_WIDTH + 40 : preview.LABEL_WIDTH + 160]
    assert len(np.unique(cell.reshape(-1, 3), axis=0)) > 5  # object colours drawn from the segmentation
