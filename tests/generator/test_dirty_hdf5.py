"""The HDF5 writer's bands (generator/io/hdf5.py): frames larger than 320x240 are chunked in bands of rows and only
the bands that changed are compressed again, into what HDF5's own gzip + shuffle filters store (the shuffled
bytes, zlib-format deflate by ISA-L), so any reader reads the files; frames up to 320x240 stay one chunk each
(today's files)."""

from __future__ import annotations

import zlib

import h5py
import numpy as np
import pytest

from voebench.generator.io import hdf5

FILTERS = dict(compression="gzip", compression_opts=1, shuffle=True)


def frames(h: int, w: int, n: int) -> list[tuple[np.ndarray, np.ndarray]]:
    """(depth, segmentation) of a square moving over a static slanted background: only its rows change."""
    yy, xx = np.mgrid[0:h, 0:w]
    bg_depth = (2.0 + 0.013 * yy + 0.007 * xx).astype(np.float32)
    bg_depth[: h // 5] = np.inf  # sky
    bg_seg = np.where(np.isinf(bg_depth), 0, 1 + (xx > w // 2)).astype(np.uint16)
    out = []
    for i in range(n):
        d, s = bg_depth.copy(), bg_seg.copy()
        y0, x0 = 3 + 2 * i, 5 + 3 * i
        d[y0 : y0 + 9, x0 : x0 + 9] = np.float32(1.5) + np.float32(0.001 * i)
        s[y0 : y0 + 9, x0 : x0 + 9] = 7
        out.append((d, s))
    return out


@pytest.mark.parametrize("chunk_rows,h,w", [(32, 70, 96), (16, 48, 40), (8, 40, 24)])
def test_chunks_hold_what_hdf5s_filters_write(tmp_path, chunk_rows, h, w):
    """Same frames written by HDF5 (`ds[u] = x`) and by TileWriter: every chunk's filter mask is equal and its
    stored bytes inflate (any zlib) to the same shuffled bytes, the last band padded as HDF5 pads it; both read back
    the frames exactly through HDF5's own filters."""
    data = frames(h, w, 4)
    with h5py.File(tmp_path / "x.h5", "w") as f:
        for k, (key, dtype) in enumerate((("depth", np.float32), ("segmentation", np.uint16))):
            plain = f.create_dataset(key, (4, h, w), dtype, chunks=(1, chunk_rows, w), **FILTERS)
            ours = f.create_dataset(key + "_tiles", (4, h, w), dtype, chunks=(1, chunk_rows, w), **FILTERS)
            writer = hdf5.TileWriter(ours)
            for u, pair in enumerate(data):
                plain[u] = pair[k]
                writer.write(u, pair[k])
            for u in range(4):
                for y in range(0, h, chunk_rows):
                    (mask_plain, plain_bytes), (mask_ours, our_bytes) = (
                        d.id.read_direct_chunk((u, y, 0)) for d in (plain, ours)
                    )
                    assert mask_plain == mask_ours == 0, (key, u, y)
                    assert zlib.decompress(plain_bytes) == zlib.decompress(our_bytes), (key, u, y)
                want = data[u][k]
                assert np.array_equal(ours[u].view(f"u{want.itemsize}"), want.view(f"u{want.itemsize}"))
            bands = -(-h // chunk_rows)
            assert writer.written == 4 * bands
            assert bands <= writer.compressed < 4 * bands  # the first frame whole, then only the square's bands


def test_only_changed_bands_are_compressed_and_changes_are_bits():
    """A band is compressed again when any of its bits changed, -0.0 for 0.0 included; otherwise its bytes are
    reused."""
    import tempfile

    with tempfile.TemporaryDirectory() as tmp, h5py.File(f"{tmp}/x.h5", "w") as f:
        ds = f.create_dataset("d", (3, 64, 16), np.float32, chunks=(1, 16, 16), **FILTERS)
        writer = hdf5.TileWriter(ds)
        a = np.zeros((64, 16), np.float32)
        writer.write(0, a)
        assert writer.compressed == 4
        writer.write(1, a.copy())
        assert writer.compressed == 4  # nothing changed: all four bands reused
        b = a.copy()
        b[40, 3] = -0.0
        writer.write(2, b)
        assert writer.compressed == 5  # the third band only
        assert np.signbit(ds[2][40, 3]) and not np.signbit(ds[1][40, 3])


@pytest.mark.parametrize(
    "size,chunks", [((320, 240), (1, 240, 320)), ((640, 480), (1, 32, 640)), ((960, 540), (1, 32, 960))]
)
def test_states_writer_chunks_and_reads_back(tmp_path, size, chunks):
    """320x240 stays one chunk per frame (today's files); larger frames are banded; the virtual (T,H,W) datasets
    read every frame back exactly through `_unique/`."""
    from test_dirty import l2_scene

    scene = l2_scene("t08_inertia_bounce", seconds=10.0, fps=4.0)
    w, h = size
    data = frames(h, w, 3)
    writer = hdf5.StatesWriter(str(tmp_path / "v.h5"), scene, w, h, {})
    for t in range(scene.n_frames):
        u = min(t, 2)
        writer.add_frame(t, u, *data[u]) if t <= 2 else writer.add_frame(t, u, None, None)
    writer.close()
    with h5py.File(tmp_path / "v.h5") as f:
        assert f["_unique/depth"].chunks == f["_unique/segmentation"].chunks == chunks
        assert f["_unique/depth"].compression == "gzip" and f["_unique/depth"].shuffle
        for t in range(scene.n_frames):
            d, s = data[min(t, 2)]
            assert np.array_equal(f["depth"][t].view(np.uint32), d.view(np.uint32))
            assert np.array_equal(f["segmentation"][t], s)
