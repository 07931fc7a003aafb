"""Scoring video-language models on voebench stimuli. Reads manifests, mp4 and HDF5 only: never bpy."""
