"""Prompt texts that both the generator and the evaluator read: data, outside the code fingerprint.

The predict suite writes its `prediction` prompt into the manifest and `evaluate/predict` asks it, and evaluate
never imports the scenes, so the text has its one owner here. A reworded text changes no video: this module is
not part of the core fingerprint (`generator/fingerprint.py`); the predict suite's prompts version covers it.
"""

from __future__ import annotations

#: The text of the predict suite's `prediction` prompt: the seed's "Physical Interaction - CLEVRER" video query,
#: verbatim (docs/predict.md).
PREDICTION_VIDEO_QUERY = (
    "As an artificial intelligence assistant capable of interpreting visual information, you have seen a video of "
    "physics-driven interactions among various objects. Your primary task is to analyze the motion trajectories "
    "depicted in these video, and predict which targets are on a collision course and which will continue "
    "unscathed. You can give multiple possible results. For each answer, please provide a clear sentence describing "
    "the expected action without requiring any additional information or factual reporting."
)
