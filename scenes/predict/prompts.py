"""The wording of the predict suite's prompt: data, outside the code fingerprint.

The text itself is owned by `voebench.contract.prompts` (the evaluator asks the same query and never imports the
scenes); this module names it for the suite, so the suite's prompts version (`identity.prompts` in dataset.json)
covers it like every other suite's wording, and `voebench render --upgrade` rewrites it in an existing set.
"""

from __future__ import annotations

from voebench.contract.prompts import PREDICTION_VIDEO_QUERY

#: The `prediction` prompt of every video: the seed's CLEVRER video query, verbatim (docs/predict.md).
VIDEO_QUERY = PREDICTION_VIDEO_QUERY
