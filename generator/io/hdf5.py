"""One HDF5 file per video (layout in docs/schema.md; names and the strict reader in voebench.contract.hdf5).

Depth and segmentation are stored once per *distinct* frame in `_unique/` and exposed as full (T,H,W)
virtual datasets `depth` and `segmentation` that map every frame to its distinct frame: a 10 s still scene
costs one frame of storage, and readers index `f["depth"][t]` as usual.

Frames larger than `WHOLE_FRAME_PIXELS` are stored in bands of `BAND_ROWS` rows (one HDF5 chunk each) and only
the bands that differ from the previous distinct frame's are compressed again (`TileWriter`): most of a frame is
static background, so at 640x480 the gzip cost follows what moved (t15: 16.7 -> 3.3 ms per distinct frame, files
15% larger; bench/render_dirty.py hdf5, docs/performance.md). The chunks are what HDF5's own gzip + shuffle
filters store, deflated by ISA-L (faster than zlib), so any HDF5 reader reads them; frames up to 320x240 stay one
chunk, written by HDF5 as before (the same bytes as earlier files).
"""

from __future__ import annotations

import contextlib
import json

import h5py
import numpy as np

from voebench.contract import SCHEMA_VERSION
from voebench.contract import hdf5 as layout
from voebench.generator.scene import Scene

# gzip 1, not 4: 1.1 ms less CPU per distinct 320x240 frame for 7% larger files (bench, docs/performance.md (g));
# standard gzip (not lzf) so that any HDF5 reader opens the files
GZIP_LEVEL = 1
COMPRESSION = dict(compression="gzip", compression_opts=GZIP_LEVEL, shuffle=True)
#: frames of at most this many pixels are one chunk each (today's 320x240 files, byte for byte); larger ones are cut
WHOLE_FRAME_PIXELS = 320 * 240
#: rows of a band, the chunk of a larger frame. Measured on t15's 263 distinct 640x480 frames (CPU ms per frame, file
#: bytes against whole frames): bands of 16/32/64 rows 3.5/3.3/4.4 ms, +26/+15/+9%; square tiles of 32/64/128 px
#: 11.0/4.9/5.6 ms (each chunk written costs a call into HDF5); whole frames 16.7 ms
BAND_ROWS = 32


def chunk_shape(width: int, height: int) -> tuple[int, int, int]:
    """The chunk of a (U, height, width) depth or segmentation dataset: a whole frame, or a band of a large one."""
    if width * height <= WHOLE_FRAME_PIXELS:
        return (1, height, width)
    return (1, min(BAND_ROWS, height), width)


class TileWriter:
    """Writes frames of a chunked (U, H, W) dataset (chunks of one frame: tiles or bands) for HDF5's gzip + shuffle
    filters, chunk by chunk, compressing only the chunks whose bits differ from the previous frame's (the others
    reuse its compressed bytes). A chunk is what HDF5's filters would store: shuffled (each element's first bytes,
    then its second bytes, ...), then deflated in the zlib format, edge chunks padded with zeros (the fill value)
    as HDF5 pads them, with filter mask 0 (HDF5's deflate keeps its output even where it is larger than the input,
    as this does). The deflate is ISA-L's (`isal`, level `GZIP_LEVEL`): the whole write 0.39-0.56x the CPU of zlib's
    at that level, streams 0.87-1.15x its size (bench/render_dirty.py hdf5-deflate); any zlib inflates them, so every
    HDF5 reader reads the files (tests/generator/test_dirty_hdf5.py reads them back through HDF5's own filter). As
    with zlib, the compressed bytes are the library's: the same on one machine and install, whatever the workers or
    shards; the values read back are the same everywhere."""

    def __init__(self, ds: h5py.Dataset) -> None:
        _, self.th, self.tw = ds.chunks
        _, h, w = ds.shape
        self.ds, self.ny, self.nx = ds, -(-h // self.th), -(-w // self.tw)
        size = ds.dtype.itemsize
        # the padded frame, kept: rows and columns past the image stay zero (the fill value)
        self._padded = np.zeros((self.ny * self.th, self.nx * self.tw), ds.dtype)
        self._word = np.uint64 if self.tw * size % 8 == 0 else np.uint8
        self._prev: np.ndarray | None = None  # the previous padded frame's bytes as words, (ny, th, nx, -1)
        self._chunks: list[list[bytes]] = [[b""] * self.nx for _ in range(self.ny)]
        self._size = size
        self._deflate = _deflate()  # resolved once: a missing isal is refused before the first frame
        self.compressed = 0  # chunks compressed, and all chunks written (for the benchmark)
        self.written = 0

    def write(self, u: int, frame: np.ndarray) -> None:
        th, tw, ny, nx, size = self.th, self.tw, self.ny, self.nx, self._size
        h, w = frame.shape
        self._padded[:h, :w] = frame
        # bytes per chunk row: equal bytes are equal bits (-0.0 differs from 0.0, every NaN is itself)
        raw = self._padded.view(np.uint8).reshape(ny, th, nx, tw * size)
        words = raw.view(self._word)  # compared 8 bytes at a time where a chunk's row allows
        if self._prev is None:
            changed = np.ones((ny, nx), bool)
            self._prev = words.copy()
        else:
            changed = (words != self._prev).any(axis=(1, 3))
            for iy, ix in zip(*np.nonzero(changed)):
                self._prev[iy, :, ix] = words[iy, :, ix]
        deflate = self._deflate
        for iy, ix in zip(*np.nonzero(changed)):
            # shuffled: per chunk, byte 0 of every element, then byte 1, ...
            block = raw[iy, :, ix].reshape(th, tw, size).transpose(2, 0, 1)
            self._chunks[iy][ix] = deflate(np.ascontiguousarray(block), GZIP_LEVEL)
        self.compressed += int(changed.sum())
        self.written += ny * nx
        write = self.ds.id.write_direct_chunk
        for iy in range(ny):
            for ix in range(nx):
                write((u, iy * th, ix * tw), self._chunks[iy][ix])


def _deflate():
    """ISA-L's zlib-format compress (`isal.isal_zlib.compress`; the gen extra installs it): the bytes of the files
    written must not depend on what else is installed, so there is no fallback."""
    try:
        from isal import isal_zlib
    except ImportError as e:
        raise RuntimeError(
            "writing depth and segmentation larger than 320x240 needs the isal package: pip install 'voebench[gen]'"
        ) from e
    return isal_zlib.compress


class StatesWriter:
    def __init__(self, path: str, scene: Scene, width: int, height: int, attrs: dict, passes=("depth", "segmentation")):
        self.f = h5py.File(path, "w", track_order=True)
        self.scene, self.w, self.h = scene, width, height
        for k, v in {"schema_version": SCHEMA_VERSION, **attrs}.items():
            self.f.attrs[k] = v
        T = scene.n_frames
        self.frame_to_unique = np.full(T, -1, np.int64)
        self.unique = {}
        self.tiles: dict[str, TileWriter] = {}
        chunks = chunk_shape(width, height)
        for name, dtype in (("depth", np.float32), ("segmentation", np.uint16)):
            if name in passes:
                self.unique[name] = self.f.create_dataset(
                    f"_unique/{name}",
                    (0, height, width),
                    dtype,
                    maxshape=(None, height, width),
                    chunks=chunks,
                    **COMPRESSION,
                )
                if chunks[1:] != (height, width):
                    self.tiles[name] = TileWriter(self.unique[name])
        self.pixel_counts = np.zeros((T, len(scene.objects) + 1), np.int64)
        self._unique_counts: list[np.ndarray] = []

    def add_frame(self, t: int, unique: int, depth: np.ndarray | None, segmentation: np.ndarray | None) -> None:
        self.frame_to_unique[t] = unique
        if unique == len(self._unique_counts):  # a newly rendered frame
            for name, data in (("depth", depth), ("segmentation", segmentation)):
                if name in self.unique:
                    ds = self.unique[name]
                    ds.resize((unique + 1, self.h, self.w))
                    if name in self.tiles:
                        self.tiles[name].write(unique, np.asarray(data, ds.dtype))
                    else:
                        ds[unique] = data
            n = len(self.scene.objects) + 1
            # -1: not measured (no segmentation pass, e.g. a states-only run)
            counts = (
                np.bincount(segmentation.ravel(), minlength=n) if segmentation is not None else np.full(n, -1, np.int64)
            )
            self._unique_counts.append(counts[: len(self.scene.objects) + 1])
        self.pixel_counts[t] = self._unique_counts[unique]

    def close(self, extra_groups: dict | None = None) -> None:
        f, sc = self.f, self.scene
        if (self.frame_to_unique < 0).any():
            raise RuntimeError("not every frame was written")
        f.create_dataset("_unique/frame_to_unique", data=self.frame_to_unique)
        for name, ds in self.unique.items():
            _virtual_frames(f, name, ds, self.frame_to_unique, np.inf if name == "depth" else 0)
        objects = f.create_group("objects", track_order=True)
        for obj in sc.objects.values():
            g = objects.create_group(obj.name)
            g.attrs["id"] = obj.id
            g.attrs["role"] = obj.role
            g.attrs["shape"] = obj.shape
            g.attrs["dimensions"] = obj.dimensions
            g.attrs["dynamic"] = obj.body is not None and obj.body.kind == "active"
            g.attrs["fixture"] = obj.fixture
            if obj.texture:
                g.attrs["texture"] = json.dumps(obj.texture)
            g.create_dataset("position", data=obj.position)
            g.create_dataset("quaternion", data=obj.quaternion)
            g.create_dataset("color", data=obj.color.astype(np.float32))
            g.create_dataset("visible", data=obj.visible)
            g.create_dataset("visible_pixels", data=self.pixel_counts[:, obj.id])
        cam = f.create_group("camera")
        assert sc.camera is not None, "Suite.make_scene refuses a build that set no camera"
        cam.create_dataset("intrinsics", data=sc.camera.intrinsics(self.w, self.h))
        cam.create_dataset("extrinsics", data=_extrinsics(sc.camera))
        cam.attrs["fov_deg"] = sc.camera.fov_deg
        if sc.violation is not None:
            g = f.create_group("violation")
            for k, v in sc.violation.as_dict().items():
                g.attrs[k] = json.dumps(v) if isinstance(v, list) else v
        for group, attrs in (extra_groups or {}).items():
            g = f.create_group(group)
            for k, v in attrs.items():
                g.attrs[k] = json.dumps(v) if isinstance(v, (dict, list)) else v
        f.close()

    def abort(self):
        # runs while another error unwinds (the caller re-raises it): closing must never replace that error
        with contextlib.suppress(Exception):
            self.f.close()


def _extrinsics(camera) -> np.ndarray:
    """`camera.extrinsics()`, computed once per distinct camera pose (most cameras never move: this took
    0.26 s of a 500-frame still video's 0.66 s). Same function per frame, so the same bits."""
    poses = np.ascontiguousarray(
        np.concatenate([np.asarray(camera.position, np.float64), np.asarray(camera.look_at, np.float64)], axis=1)
    )
    first: dict[bytes, int] = {}
    index = np.empty(len(poses), np.int64)
    for t, row in enumerate(poses):
        index[t] = first.setdefault(row.tobytes(), len(first))
    starts = {int(u): t for t, u in reversed(list(enumerate(index)))}
    distinct = np.stack([np.linalg.inv(camera.cam_to_world(starts[u])) for u in range(len(first))])
    return distinct[index]


def _virtual_frames(f: h5py.File, name: str, source: h5py.Dataset, frame_to_unique: np.ndarray, fill) -> None:
    """A (T,H,W) virtual dataset whose frame t is source[frame_to_unique[t]]. Runs of frames that map to
    consecutive source frames become one mapping. Built with the low-level API to switch off HDF5's object
    timestamps (h5py's create_virtual_dataset records the creation time, so identical runs gave different
    bytes); with them off, the same video always gives the same file, byte for byte."""
    T = len(frame_to_unique)
    shape = (T,) + source.shape[1:]
    rest = tuple(source.shape[1:])
    dcpl = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    dcpl.set_obj_track_times(False)
    dcpl.set_fill_value(np.array([fill], source.dtype))
    vspace = h5py.h5s.create_simple(shape)
    sspace = h5py.h5s.create_simple(tuple(source.shape))
    src = source.name.encode()
    t = 0
    while t < T:
        u, n = int(frame_to_unique[t]), 1
        while t + n < T and frame_to_unique[t + n] == u + n:
            n += 1
        vspace.select_hyperslab((t,) + (0,) * len(rest), (n,) + rest)
        sspace.select_hyperslab((u,) + (0,) * len(rest), (n,) + rest)
        dcpl.set_virtual(vspace, b".", src, sspace)
        t += n
    tid = h5py.h5t.py_create(source.dtype, logical=1)
    h5py.h5d.create(f.id, name.encode(), tid, h5py.h5s.create_simple(shape), dcpl=dcpl).close()


def read_states(path: str) -> dict:
    """The ground truth of one video as plain numpy (everything but depth and segmentation); strict."""
    return layout.read_states(path)
