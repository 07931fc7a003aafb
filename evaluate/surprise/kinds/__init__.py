"""World-model kinds, one file each, registered in `voebench.evaluate.models.kind.WORLD_MODELS` (issue 27's seam).

Each entry is a class with `spec` (the part after `name:` as `--help` shows it, "" for none) and a classmethod
`scorer(rest, device, dtype, seed)` that returns a scorer with score.py's interface (check, info, surprise,
visible). These files import torch and transformers only inside `scorer`, so `voebench --help` stays light.
`run.make_scorer` looks a spec's kind up here.
"""
