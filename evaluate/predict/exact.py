"""The exact scorer of collision predictions (the package `voebench.evaluate.predict.reading` states the reading
rules): this module keeps its public names importable from `voebench.evaluate.predict.exact`."""

from __future__ import annotations

from .reading import (
    STATUSES,
    Parsed,
    Score,
    aggregate,
    choice_letter,
    final_part,
    json_text,
    normalize,
    parse,
    read_clause,
    read_structured,
    score,
    score_choice,
    table_text,
)

__all__ = [
    "STATUSES",
    "Parsed",
    "Score",
    "aggregate",
    "choice_letter",
    "final_part",
    "json_text",
    "normalize",
    "parse",
    "read_clause",
    "read_structured",
    "score",
    "score_choice",
    "table_text",
]
