"""`replay:<file>`: answers read back from a file instead of a model, to re-score old runs under new rules.

Accepted lines (JSONL):
- an earlier run's ``samples.jsonl``: ``{"sample_id", "repeat", "responses": [per turn]}``;
- a plain response list: ``{"sample_id": ..., "response": "..."}`` (or ``"key"`` instead of ``sample_id``), with
  optional ``"repeat"`` (default: used for every repeat) and ``"turn"`` (default: the last turn).
A request with no recorded answer fails (it is not cached and is reported as missing), so nothing is silently
scored as empty. The file is read strictly (`ValueError` naming file and line, which the command line reports in
one line): every line a JSON object with an id and an answer, at least one answer in the file, UTF-8 text.
"""

from __future__ import annotations

import hashlib
import json
import os

from voebench.evaluate.models.base import Adapter, AdapterError, Request


class ReplayAdapter(Adapter):
    def __init__(self, path: str):
        if not os.path.isfile(path):
            raise FileNotFoundError(path)
        self.path = os.path.abspath(path)
        self.name = f"replay:{os.path.basename(path)}"
        self.batch_size = 256
        h = hashlib.sha256()
        # (sample_id, repeat or None) -> {turn or -1: response}
        self.table: dict[tuple[str, int | None], dict[int, str]] = {}
        with open(self.path, "rb") as fh:
            data = fh.read()
        h.update(data)
        self.digest = h.hexdigest()[:16]
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise ValueError(f"{path}: not UTF-8 text (a replay file is JSONL)") from None
        for n, line in enumerate(text.splitlines(), 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                raise ValueError(f"{path}:{n}: not JSON") from None
            if not isinstance(rec, dict):
                raise ValueError(f'{path}:{n}: not a JSON object (expected {{"sample_id": ..., "response": ...}})')
            sid = rec.get("sample_id", rec.get("key"))
            if sid is None or isinstance(sid, (dict, list)):
                raise ValueError(f"{path}:{n}: needs sample_id (or key)")
            rep = _whole(rec.get("repeat"), path, n, "repeat")
            slot = self.table.setdefault((str(sid), rep), {})
            if isinstance(rec.get("responses"), list):
                for t, resp in enumerate(rec["responses"]):
                    if resp is not None:
                        slot[t] = str(resp)
            elif "response" in rec:
                turn = _whole(rec.get("turn", -1), path, n, "turn")
                slot[-1 if turn is None else turn] = "" if rec["response"] is None else str(rec["response"])
            else:
                raise ValueError(f"{path}:{n}: needs response (text) or responses (a list, one per turn)")
        if not self.table:
            raise ValueError(f"{path}: holds no answers")

    def settings(self) -> dict:
        return {"file_sha256": self.digest}

    def answered(self, sample_ids) -> int:
        """How many of `sample_ids` the file holds an answer for (the command line refuses a file that answers
        none of the questions asked: every call would fail)."""
        have = {sid for sid, _ in self.table}
        return sum(1 for s in set(sample_ids) if s in have)

    def example_id(self) -> str:
        """One id of the file, to name in a message."""
        return next(iter(self.table))[0]

    def _lookup(self, r: Request) -> str:
        sid = r.sample.sample_id
        for key in ((sid, r.repeat), (sid, None)):
            slot = self.table.get(key)
            if slot is None:
                continue
            if r.turn in slot:
                return slot[r.turn]
            if r.turn == r.n_turns - 1 and -1 in slot:
                return slot[-1]
            if r.turn < r.n_turns - 1:
                return ""  # earlier turn not recorded: the final answer is what is scored
        raise AdapterError(f"no recorded response for {sid} (repeat {r.repeat}, turn {r.turn})")

    def generate(self, requests: list[Request]) -> list[str | BaseException]:
        out: list[str | BaseException] = []
        for r in requests:
            try:
                out.append(self._lookup(r))
            except AdapterError as e:
                out.append(e)
        return out


def _whole(value, path: str, n: int, key: str) -> int | None:
    """A repeat or turn number: a whole number, or None where the line leaves it out."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise ValueError(f"{path}:{n}: {key} must be a whole number, got {value!r}")
    try:
        return int(value)
    except ValueError:
        raise ValueError(f"{path}:{n}: {key} must be a whole number, got {value!r}") from None
