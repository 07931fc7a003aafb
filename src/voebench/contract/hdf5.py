"""The HDF5 layout of one video's ground truth (docs/schema.md, "HDF5").

Names of every root attribute, group, dataset and attribute, and the strict readers: `read_root` (root
attributes, checked), `read_manifest_entry` (the entry kept in the file, for resuming a run whose manifest
line was lost) and `read_states` (everything but depth and segmentation, as numpy). Each raises
`ContractError` naming the file when it is unreadable or lacks a required name. `is_complete` never raises: it
is the generator's cheap "is this video done?" probe.
"""

from __future__ import annotations

import json

from voebench.contract import ContractError

#: Root attributes every file has. `manifest_entry` (the video's manifest line, JSON) and `complete` (True) are
#: written last, just before the file is renamed to its final name.
ROOT_ATTRS = (
    "id",
    "suite",
    "test",
    "index",
    "condition",
    "pair_id",
    "seed",
    "fps",
    "n_frames",
    "width",
    "height",
    "attempt",
    "engine",
    "params",
    "generator_version",
    "schema_version",
    "code_fingerprint",
    "scene_fingerprint",
    "manifest_entry",
    "complete",
)

#: The root attributes `read_states` needs: what the video is. (`read_root` checks all of ROOT_ATTRS.)
STATES_ATTRS = (
    "id",
    "suite",
    "test",
    "index",
    "condition",
    "pair_id",
    "seed",
    "fps",
    "n_frames",
    "width",
    "height",
    "complete",
)

#: Per-frame image datasets (virtual, over `_unique/`), present when their pass was rendered.
FRAME_DATASETS = ("depth", "segmentation")
#: Storage of each distinct frame once, and the frame -> distinct-frame map.
UNIQUE_DATASETS = ("_unique/depth", "_unique/segmentation", "_unique/frame_to_unique")
#: Groups.
GROUPS = ("objects", "camera", "violation", "labels", "_unique")

#: Attributes of `objects/<name>`; `texture` only on textured objects.
OBJECT_ATTRS = ("id", "role", "shape", "dimensions", "dynamic", "fixture", "texture")
OBJECT_REQUIRED_ATTRS = ("id", "role", "shape", "dimensions", "dynamic")
#: Datasets of `objects/<name>`: name -> trailing shape after the frame axis.
OBJECT_SERIES = {"position": (3,), "quaternion": (4,), "color": (3,), "visible": (), "visible_pixels": ()}

#: `camera/` datasets and attributes.
CAMERA_DATASETS = ("intrinsics", "extrinsics")
CAMERA_ATTRS = ("fov_deg",)

#: Attributes of `violation/` (implausible / surprising videos only); `principles` is a JSON list.
VIOLATION_ATTRS = ("principles", "kind", "object", "first_frame", "last_frame", "hidden")
#: Further attributes of a graded violation (issue 24): its size in its unit, how the audit measures it, and the
#: audit's tolerance on that measurement.
VIOLATION_LEVEL_ATTRS = ("level", "unit", "measure", "tol")
#: Attributes of `labels/` (AVoE only), each a JSON object name -> value.
LABELS_ATTRS = ("features", "prior_rules", "posterior_rules")


def _text(v):
    return v.decode() if isinstance(v, bytes) else v


def _open(path: str):
    import h5py

    try:
        return h5py.File(path, "r")
    except (OSError, ValueError) as e:
        raise ContractError(f"{path}: unreadable HDF5 ({e}); `voebench verify --repair` deletes it") from None


def is_complete(path: str) -> bool:
    """Whether `path` is a readable HDF5 marked complete (False for anything else; never raises)."""
    import h5py

    try:
        with h5py.File(path, "r") as f:
            return bool(f.attrs.get("complete", False))
    except (OSError, KeyError, ValueError):
        return False


def _root(f, path: str, required=ROOT_ATTRS) -> dict:
    attrs = {k: _text(v) for k, v in f.attrs.items()}
    missing = [a for a in required if a not in attrs]
    if missing:
        raise ContractError(f"{path}: lacks root attribute(s) {', '.join(missing)} (docs/schema.md)")
    if not attrs["complete"]:
        raise ContractError(f"{path}: not marked complete")
    return attrs


def read_root(path: str) -> dict:
    """The root attributes of a finished video's HDF5, checked against ROOT_ATTRS."""
    with _open(path) as f:
        return _root(f, path)


def read_manifest_entry(path: str) -> dict:
    """The manifest entry a finished HDF5 keeps (`manifest_entry`)."""
    attrs = read_root(path)
    try:
        entry = json.loads(attrs["manifest_entry"])
    except ValueError:
        raise ContractError(f"{path}: manifest_entry is not JSON") from None
    if not isinstance(entry, dict) or "id" not in entry:
        raise ContractError(f"{path}: manifest_entry is not a manifest entry")
    return entry


def read_states(path: str) -> dict:
    """The ground truth of one video as plain numpy (everything but depth and segmentation):
    {"attrs": root attributes, "objects": name -> attributes and series, "camera": datasets and attributes,
    "violation": attributes (implausible videos), "labels": attributes (AVoE)}."""
    with _open(path) as f:
        try:
            out = {"attrs": _root(f, path, STATES_ATTRS), "objects": {}, "camera": {}}
            for name, g in f["objects"].items():
                o = {k: _text(v) for k, v in g.attrs.items()}
                lack = [k for k in OBJECT_REQUIRED_ATTRS if k not in o] + [k for k in OBJECT_SERIES if k not in g]
                if lack:
                    raise ContractError(f"{path}: objects/{name} lacks {', '.join(lack)} (docs/schema.md)")
                for k in g:
                    o[k] = g[k][()]
                out["objects"][name] = o
            cam = f["camera"]
            out["camera"] = {k: cam[k][()] for k in CAMERA_DATASETS}
            out["camera"].update({k: cam.attrs[k] for k in CAMERA_ATTRS if k in cam.attrs})
            for group in ("violation", "labels"):
                if group in f:
                    out[group] = {k: _text(v) for k, v in f[group].attrs.items()}
        except KeyError as e:
            raise ContractError(
                f"{path}: lacks {e.args[0] if e.args else 'a required group'} (docs/schema.md)"
            ) from None
    return out
