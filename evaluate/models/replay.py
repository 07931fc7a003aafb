"""`replay:<file>`: answers read back from a file instead of a model, to re-score old runs under new rules.

Accepted lines (JSONL):
- an earlier run's ``samples.jsonl``: ``{"sample_id", "repeat", "responses": [per turn]}``;
- a plain response list: ``{"sample_id": ..., "response": "..."}`` (or ``"key"`` instead of ``sample_id``), with
  optional ``"repeat"`` (default: used for every repeat) and ``"turn"`` (default: the last turn).
A request with no recorded answer fails (it is not cached and is reported as missing), so nothing is silently
scored as empty.
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
        for n, line in enumerate(data.decode("utf-8").splitlines(), 1):
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                raise ValueError(f"{path}:{n}: not JSON") from None
            sid = rec.get("sample_id", rec.get("key"))
            if sid is None:
                raise ValueError(f"{path}:{n}: needs sample_id (or key)")
            rep = rec.get("repeat")
            slot = self.table.setdefault((str(sid), None if rep is None else int(rep)), {})
            if isinstance(rec.get("responses"), list):
                for t, resp in enumerate(rec["responses"]):
                    if resp is not None:
                        slot[t] = str(resp)
            elif "response" in rec:
                slot[int(rec.get("turn", -1))] = "" if rec["response"] is None else str(rec["response"])
            else:
                raise ValueError(f"{path}:{n}: needs response or responses")

    def settings(self) -> dict:
        return {"file_sha256": self.digest}

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
