"""Scoring video world models by surprise on matched pairs (the V-JEPA protocol of Garrido et al. 2025).

No question is asked: a model that predicts the future of a video in its own latent space is "surprised" by a
video in proportion to its prediction error, and a model that understands a principle should be more surprised by
the implausible video of a pair than by its plausible twin. The modules, each one step:

- `protocol`: which frames a model sees (frame step, 16-frame windows, stride, context lengths).
- `vjepa2`: the V-JEPA 2 scorer (transformers' `VJEPA2Model` with its predictor) and tiny configs for tests.
- `score`: runs a scorer over the videos of a rendered set and stores one surprise curve per video.
- `metrics`: relative and absolute accuracy, AUROC, bootstrap intervals, best vs fixed context, pre-onset gap.
- `report`: results.json, report.md and the curves plot of a surprise run.
- `train`: trains a small V-JEPA 2 on the plausible videos of a rendered set (the world model voebench can grow).

Only `protocol`, `metrics` and `report` import without torch.
"""
