"""The data contract: what voebench writes and reads (manifest.jsonl, dataset.json, the HDF5 layout, the AVoE
label vocabulary). The lowest layer: it imports nothing else of voebench but `voebench.errors`, so the
generator, the scenes and `evaluate` can all depend on it.

Every reader here is strict: a file that breaks the contract raises `ContractError` (a `UsageError`, so the
command line prints one line and exits 2) naming the file and, for a manifest, the line. docs/schema.md
documents every key named here; tests/contract/test_schema_doc.py keeps the two in step.
"""

from voebench.errors import UsageError

#: Version of the on-disk layout. 1 = the release before `dataset.json` carried `written_by`/`schema_version`
#: (never written as a number); 2 = this one (adds the code fingerprints and `pair_conditions`).
SCHEMA_VERSION = 2

#: The marker every `dataset.json` voebench writes carries as `written_by`.
WRITTEN_BY = "voebench"


class ContractError(UsageError):
    """A file of a rendered set that breaks the data contract (docs/schema.md): unreadable, foreign, made by an
    older release, or missing a required key."""
