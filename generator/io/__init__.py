"""Writers and readers of the output contract (docs/schema.md): mp4, one HDF5 per video, the manifest."""
