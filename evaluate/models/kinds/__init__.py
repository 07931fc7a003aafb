"""One module per `--model` kind, each registering a `ModelKind` class (evaluate/models/kind.py) under its name.

`MODELS` imports every module here the first time it is read, so a new kind is one new file in this folder; keep
heavy imports (torch, transformers, numpy) inside the kind's methods.
"""
