"""Every list of names the contract defines, by the name docs/schema.md uses to mark its table
(`<!-- contract: NAME -->` above the table). tests/contract/test_schema_doc.py checks each table lists exactly these
names, so the document and the code cannot drift apart."""

from voebench.contract import dataset, hdf5, manifest

TABLES = {
    "dataset.KEYS": dataset.KEYS,
    "dataset.SUITE_KEYS": dataset.SUITE_KEYS + dataset.SUITE_OPTIONAL_KEYS,
    "dataset.IDENTITY_KEYS": dataset.IDENTITY_KEYS + dataset.IDENTITY_OPTIONAL_KEYS,
    "dataset.CODE_KEYS": dataset.CODE_KEYS,
    "manifest.KEYS": manifest.KEYS,
    "manifest.PROMPT_KEYS": manifest.PROMPT_KEYS,
    "manifest.PARAMS_KEYS": manifest.PARAMS_KEYS,
    "hdf5.ROOT_ATTRS": hdf5.ROOT_ATTRS,
    "hdf5.DATASETS": hdf5.FRAME_DATASETS + hdf5.UNIQUE_DATASETS + hdf5.GROUPS,
    "hdf5.OBJECT_ATTRS": hdf5.OBJECT_ATTRS,
    "hdf5.OBJECT_SERIES": tuple(hdf5.OBJECT_SERIES),
    "hdf5.CAMERA": hdf5.CAMERA_DATASETS + hdf5.CAMERA_ATTRS,
    "hdf5.VIOLATION_ATTRS": hdf5.VIOLATION_ATTRS + hdf5.VIOLATION_LEVEL_ATTRS,
    "hdf5.LABELS_ATTRS": hdf5.LABELS_ATTRS,
}
