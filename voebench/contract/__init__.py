"""The data contract: what voebench writes and reads (manifest.jsonl, dataset.json, the HDF5 layout, the AVoE
label vocabulary). The lowest layer: it imports nothing else of voebench but `voebench.errors`, so the
generator, the scenes and `evaluate` can all depend on it."""
