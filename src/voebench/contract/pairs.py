"""Whole pairs: the videos of one paired trial (Level 2, AVoE) are only meaningful together.

A paired entry names its trial (`pair_id`) and the conditions the trial was rendered in (`pair_conditions`:
both conditions, or for AVoE training trials only `expected`). A pair is complete when every one of those
conditions has an entry. Entries written before `pair_conditions` existed (schema 1, the test fixtures) fall
back to the two conditions of their vocabulary (plausible/implausible or expected/surprising).
"""

from __future__ import annotations

from collections import defaultdict

#: The two conditions of a pair, in display order.
PAIR_VOCABULARIES = (("plausible", "implausible"), ("expected", "surprising"))


def expected_conditions(entry: dict) -> tuple[str, ...] | None:
    """The conditions the entry's trial should have, or None for an unpaired video."""
    if not entry.get("pair_id"):
        return None
    if entry.get("pair_conditions"):
        return tuple(entry["pair_conditions"])
    for vocab in PAIR_VOCABULARIES:
        if entry.get("condition") in vocab:
            return vocab
    return (str(entry.get("condition")),)


def video_key(entry: dict) -> str:
    """The name of an entry's place in its trial: its condition, and in a sweep (several violated videos of one
    trial, one per level) the level's rank after it, as in `pair_conditions`: `implausible-2`."""
    rank = entry.get("sweep_rank")
    return f"{entry.get('condition')}-{rank}" if rank else str(entry.get("condition"))


def incomplete_pairs(entries) -> dict[str, list[str]]:
    """pair_id -> the missing conditions, for every paired trial of `entries` that lacks a video."""
    present: dict[str, set] = defaultdict(set)
    wanted: dict[str, set] = defaultdict(set)
    for e in entries:
        want = expected_conditions(e)
        if want is None:
            continue
        present[e["pair_id"]].add(video_key(e))
        wanted[e["pair_id"]].update(want)
    return {pid: sorted(wanted[pid] - present[pid]) for pid in sorted(present) if wanted[pid] - present[pid]}


def drop_incomplete(entries: list[dict]) -> tuple[list[dict], dict[str, list[str]]]:
    """(the entries of complete pairs and unpaired videos, the dropped pairs with their missing conditions)."""
    bad = incomplete_pairs(entries)
    return [e for e in entries if e.get("pair_id") not in bad], bad


def describe(bad: dict[str, list[str]], total_pairs: int) -> str:
    """One line: how many pairs are incomplete, with an example."""
    first = next(iter(bad))
    return (
        f"{len(bad)} of {total_pairs} pairs are incomplete (one video of the pair is missing, e.g. {first} "
        f"lacks its {', '.join(bad[first])} video)"
    )


def count_pairs(entries) -> int:
    return len({e["pair_id"] for e in entries if e.get("pair_id")})
