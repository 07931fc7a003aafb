"""What reading an answer gives: its status (pairs / none / unreadable), the pairs, the unscathed objects."""

from __future__ import annotations

from dataclasses import dataclass, field


STATUSES = ("pairs", "none", "unreadable")


@dataclass
class Parsed:
    """What an answer says. `pairs` and `unhit` are the reader's; `denied` (pairs said not to collide) and
    `claimed_unhit` (every object called unscathed, even one also said to be hit) keep strict credit honest."""

    status: str = "unreadable"
    pairs: set = field(default_factory=set)  # frozensets of two object labels (or wrong names)
    unhit: set = field(default_factory=set)
    mentioned: set = field(default_factory=set)
    denied: set = field(default_factory=set)
    claimed_unhit: set = field(default_factory=set)
    reason: str = ""  # why an answer is unreadable

    @property
    def hit(self) -> set:
        return {x for p in self.pairs for x in p}

    @property
    def unparsed(self) -> bool:
        return self.status == "unreadable"

    def as_dict(self) -> dict:
        return {
            "status": self.status,
            "pairs": sorted(sorted(p) for p in self.pairs),
            "hit": sorted(self.hit),
            "unhit": sorted(self.unhit),
            "mentioned": sorted(self.mentioned),
            "reason": self.reason,
        }
