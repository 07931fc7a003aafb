"""Helpers for tests that write rendered-set files by hand (stubs of the evaluate and audit tests): the keys and
attributes the data contract (voebench.contract, docs/schema.md) requires, so hand-made sets pass its strict
readers the way generated ones do."""

from __future__ import annotations

import json
import os

from voebench.contract import SCHEMA_VERSION
from voebench.contract import dataset as ds
from voebench.contract import manifest as mf

STUB_CODE = {"code_fingerprint": "test", "scene_fingerprint": "test"}


def complete_entry(entry: dict) -> dict:
    """`entry` with every required manifest key (stub values for the ones a test does not care about)."""
    stub = {
        "index": 0,
        "pair_id": None,
        "seed": 0,
        "video": None,
        "prompts": [],
        "description": "",
        "violation": None,
        "params": {"sampled": {}, "config": {}},
    }
    return {**{k: v for k, v in stub.items() if k in mf.REQUIRED_KEYS}, **entry}


def root_attrs(entry: dict) -> dict:
    """Every HDF5 root attribute of the contract for a stub file of `entry` (`complete` included)."""
    e = complete_entry(entry)
    return {
        "id": e["id"],
        "suite": e["suite"],
        "test": e["test"],
        "index": e["index"],
        "condition": e["condition"],
        "pair_id": e.get("pair_id") or "",
        "seed": e["seed"],
        "attempt": 0,
        "fps": e["fps"],
        "n_frames": e["n_frames"],
        "width": e["width"],
        "height": e["height"],
        "engine": "none",
        "params": json.dumps(e["params"]),
        "generator_version": "test",
        "schema_version": SCHEMA_VERSION,
        **STUB_CODE,
        "manifest_entry": json.dumps(e),
        "complete": True,
    }


def write_dataset(root: str) -> None:
    """A dataset.json as voebench writes it (no suites: stub sets are never resumed), unless one is there."""
    path = os.path.join(root, ds.NAME)
    if not os.path.exists(path):
        ds.write_dataset(path, ds.new_dataset("test"))
