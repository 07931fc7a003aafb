"""`--replicas N`: N processes each holding its own copy of the model, each answering whole batches (issue 28).

A small model leaves the GPU idle between its kernels: one process launches them from Python and waits on
transformers' host syncs, so `generate` runs kernels only part of the time. Several processes on one GPU fill
each other's gaps. `ReplicaPool` is an `Adapter` for the runner: it spawns N processes (spawned, not forked:
CUDA), each building the adapter of the same `--model` spec with the same options through `make_adapter`, and
answers N batches at once (`generate_each`): batch k goes to replica k, the answers come back in order.

Answers equal the one-process run's: the runner cuts exactly the batches a one-process run would cut
(`batch_size` conversations, in the same order, with the same seeds) and only hands N of them out at once; each
replica runs the very adapter a one-process run would run on them. The replica count is not part of the adapter's
settings (so not of the cache key); what changes answers (dtype, the device's type) is, and replicas whose
settings differ are refused.

Frames: every replica reads the decoded-frame store (memory-mapped, shared by all) and decodes what it lacks with
its own decoding workers (`workers` per replica), writing it back; no frames cross the pipe. The parent decodes
nothing. Timing: each reply carries the replica's stage seconds since its last reply (summed over replicas into
the run's timer, as decoding is summed over workers), its `generate` intervals (the run's busy share reads their
union) and its clip counts.

A replica that dies (killed, out of memory) fails the run with one line (`ReplicaError`), after the answers that
came before it are written: the same command resumes. Every replica dies with this process.
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import pickle
import signal
import time
from collections.abc import Iterator
from typing import Any

from voebench.errors import UsageError
from voebench.evaluate.models.base import Adapter, AdapterError, Request

#: options a replica is built from: what pickles plainly (argparse's namespace also holds the command's function)
_PLAIN = (str, int, float, bool, type(None), list, tuple)
#: seconds a replica gets to finish its batch and exit when the pool closes, before it is terminated
CLOSE_WAIT_S = 5.0


class ReplicaError(RuntimeError):
    """A replica failed for good (died, or could not load its model): one line that says what to do."""


def parse_devices(device: str | None) -> list[str]:
    """`--device cuda:0,cuda:1` -> ['cuda:0', 'cuda:1'] (replica k gets device k modulo the list); one device or
    None -> a list of one."""
    parts = [d.strip() for d in (device or "auto").split(",") if d.strip()]
    return parts or ["auto"]


def replica_count(value: int | None, devices: list[str]) -> int:
    """`--replicas`: the number given (at least 1), or unset: one per listed device."""
    if value is None:
        return len(devices)
    if value < 1:
        raise UsageError(f"--replicas must be at least 1, got {value}")
    return value


class ReplicaPool(Adapter):
    """N replicas of the adapter `make_adapter(spec, **options)` would build, one process each (see the module)."""

    decodes_video = False  # the replicas decode (and read the store); this process decodes nothing
    timed_stages = True  # the replicas' stage seconds are added to the run's timer here

    def __init__(
        self,
        spec: str,
        options: dict[str, Any],
        replicas: int,
        *,
        frame_store: str | None = None,
        workers: int = 0,
        start_timeout: float = 900.0,
    ):
        if replicas < 1:
            raise UsageError(f"--replicas must be at least 1, got {replicas}")
        self.replicas = replicas
        self.spec = spec
        self.devices = parse_devices(options.get("device"))
        plain = {k: v for k, v in options.items() if isinstance(v, _PLAIN)}
        self.batch_size = max(1, int(options.get("batch_size") or 1))
        self.workers_per_replica = workers
        ctx = multiprocessing.get_context("spawn")
        self._procs: list[Any] = []
        self._conns: list[Any] = []
        self._closed = False
        try:
            for k in range(replicas):
                here, there = ctx.Pipe()
                opts = {**plain, "device": self.devices[k % len(self.devices)]}
                p = ctx.Process(
                    target=_replica_main,
                    args=(there, spec, opts, frame_store, workers, os.getpid(), k == 0),
                    name=f"voebench-replica-{k}",
                    daemon=False,  # a replica forks its own decoding workers; it dies with us (parent_death)
                )
                p.start()
                there.close()  # ours closed: a dead replica reads as EOF here
                self._procs.append(p)
                self._conns.append(here)
            infos = [self._reply(k, timeout=start_timeout) for k in range(replicas)]
        except BaseException:
            self.close()
            raise
        first = infos[0]
        for k, info in enumerate(infos[1:], 1):
            if info["settings"] != first["settings"] or info["name"] != first["name"]:
                self.close()
                raise UsageError(
                    f"--replicas: replica {k} ({info['device']}) would answer with other settings than replica 0 "
                    f"({first['device']}): {info['settings']} vs {first['settings']}; give devices of one type"
                )
        self.name = first["name"]
        self._settings = first["settings"]
        self.batch_size = int(first["batch_size"])
        self.replica_devices = [i["device"] for i in infos]
        self.device = _torch_device(first["device"])  # what the runner's GPU sampler watches (replica 0's)
        self.stats: dict[str, Any] = {
            "replicas": replicas,
            "replica_devices": self.replica_devices,
            "replica_workers": workers,
            "replica_load_s": [i["load_s"] for i in infos],
        }

    # -- the adapter interface ----------------------------------------------------------------------------------
    def settings(self) -> dict:
        return dict(self._settings)

    @property
    def preprocesses_in_workers(self) -> bool:
        return True  # the replicas read their frames themselves: the runner decodes nothing ahead for this process

    def _slices(self, requests: list[Request]) -> list[list[Request]]:
        return [requests[i : i + self.batch_size] for i in range(0, len(requests), self.batch_size)]

    def prefetch(self, requests: list[Request]) -> None:
        """The next N batches: batch k to replica k, which prepares it while it answers its current one."""
        for k, part in enumerate(self._slices(requests)[: self.replicas]):
            self._send(k, ("prefetch", part))

    def generate(self, requests: list[Request]) -> list[str | BaseException]:
        out: list[str | BaseException] = []
        for got in self.generate_each(self._slices(requests)):
            out.extend(got)
        return out

    def generate_each(self, batches: list[list[Request]]) -> Iterator[list[str | BaseException]]:
        """Answer up to N batches at once, batch k on replica k (more than N: in rounds); yields each batch's
        answers in order, as soon as it and every batch before it are answered."""
        for start in range(0, len(batches), self.replicas):
            round_ = batches[start : start + self.replicas]
            for k, b in enumerate(round_):
                self._send(k, ("generate", b))
            for k in range(len(round_)):
                yield self._reply(k)

    def warm_up(self, requests: list[Request]) -> bool:
        """`--warmup`: every replica generates a batch of `requests` once, discarded (the first batches, one each,
        or the first for all when there are fewer)."""
        parts = self._slices(requests) or [[]]
        for k in range(self.replicas):
            self._send(k, ("warm_up", parts[k % len(parts)]))
        return all([self._reply(k) for k in range(self.replicas)])

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        for conn in self._conns:
            with contextlib.suppress(OSError, ValueError):
                conn.send(("close", None))
        deadline = time.monotonic() + CLOSE_WAIT_S
        for p in self._procs:
            p.join(max(0.0, deadline - time.monotonic()))
        for p in self._procs:
            if p.is_alive():
                p.terminate()
                p.join(2.0)
            if p.is_alive():
                p.kill()
                p.join(2.0)
        for conn in self._conns:
            conn.close()

    # -- the pipes -----------------------------------------------------------------------------------------------
    def _send(self, k: int, msg: tuple) -> None:
        with contextlib.suppress(OSError, ValueError):  # the pipe is gone: the replica died; _reply says how
            self._conns[k].send(msg)

    def _reply(self, k: int, timeout: float | None = None) -> Any:
        conn, proc = self._conns[k], self._procs[k]
        try:
            if timeout is not None and not conn.poll(timeout):
                raise ReplicaError(f"replica {k} did not load its model within {timeout:.0f} s")
            kind, payload = conn.recv()
        except (EOFError, OSError):
            proc.join(2.0)
            code = proc.exitcode
            how = f"killed by signal {-code}" if code is not None and code < 0 else f"exit status {code}"
            raise ReplicaError(
                f"replica {k} (pid {proc.pid}) died ({how}); the answers written so far are kept: "
                "run the same command again to resume"
            ) from None
        if kind == "usage":
            raise UsageError(payload)
        if kind == "error":
            raise ReplicaError(f"replica {k}: {payload}")
        if kind == "answers":
            results, timing = payload
            self._add_timing(timing)
            return results
        return payload

    def _add_timing(self, timing: dict) -> None:
        from voebench.evaluate import frames as frames_mod

        if self.timer is not None:
            for stage, (seconds, count) in timing["stages"].items():
                self.timer.add(stage, seconds, count)
            self.timer.generate_intervals.extend(tuple(iv) for iv in timing["intervals"])
        frames_mod.add_stats(**timing["frames"])


def _torch_device(name: str) -> Any:
    if not name.startswith("cuda"):
        return None
    import torch

    return torch.device(name)


# -- the replica's side ----------------------------------------------------------------------------------------------
def _replica_main(
    conn: Any, spec: str, options: dict, store: str | None, workers: int, parent_pid: int, sweep: bool
) -> None:
    """One replica: build the adapter, say it is ready, then answer what the pool sends until told to close."""
    from voebench.parent_death import die_with_parent

    die_with_parent(parent_pid)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's: it closes the pool
    try:
        _serve(conn, spec, options, store, workers, sweep)
    except (EOFError, BrokenPipeError):  # the parent went away
        pass
    finally:
        from voebench.evaluate import frames as frames_mod

        frames_mod.use_workers(0)


def _serve(conn: Any, spec: str, options: dict, store: str | None, workers: int, sweep: bool) -> None:
    from voebench.evaluate import frames as frames_mod
    from voebench.evaluate.models.kind import make_adapter
    from voebench.evaluate.timing import StageTimer

    t0 = time.perf_counter()
    try:
        frames_mod.use_store(store)
        if store and sweep:
            from voebench.evaluate.frame_store import FrameStore

            FrameStore(store).sweep_stale()
        adapter = make_adapter(spec, **options)
        decodes = bool(getattr(adapter, "decodes_video", False))
        if decodes and workers > 0:  # as the runner does for one process: decoders forked now, the next batch ahead
            frames_mod.use_workers(workers)
            adapter.pipelined = True
    except UsageError as e:
        conn.send(("usage", " ".join(str(e).splitlines())))
        return
    except Exception as e:  # noqa: BLE001 - out of memory at load and the like: one line to the parent
        conn.send(("error", f"cannot load the model: {type(e).__name__}: {' '.join(str(e).splitlines())[:500]}"))
        return
    device: Any = getattr(adapter, "device", None)
    if getattr(device, "type", None) == "cuda" and getattr(device, "index", 0) is None:
        import torch

        device = torch.device("cuda", torch.cuda.current_device())
    conn.send(
        (
            "ready",
            {
                "name": adapter.name,
                "settings": adapter.settings(),
                "batch_size": getattr(adapter, "batch_size", 1),
                "device": str(device) if device is not None else "cpu",
                "load_s": round(time.perf_counter() - t0, 2),
            },
        )
    )
    seen = dict(frames_mod.STATS)
    adapter.timer = StageTimer()
    while True:
        kind, payload = conn.recv()
        if kind == "close":
            adapter.close()
            return
        if kind == "prefetch":
            if decodes and not getattr(adapter, "preprocesses_in_workers", False):
                frames_mod.prefetch(
                    (m["video"]["path"], m["video"]["indices"]) for r in payload for m in r.messages if m.get("video")
                )
            adapter.prefetch(payload)
        elif kind == "warm_up":
            warm = getattr(adapter, "warm_up", None)
            ok = bool(callable(warm) and payload and warm(payload))
            seen, adapter.timer = dict(frames_mod.STATS), StageTimer()  # the warm-up is not timed
            conn.send(("done", ok))
        elif kind == "generate":
            try:
                results = [_picklable(r) for r in adapter.generate(payload)] if payload else []
            except Exception as e:  # noqa: BLE001 - a bug or a broken device: one line, the run stops
                conn.send(("error", f"{type(e).__name__}: {' '.join(str(e).splitlines())[:500]}"))
                continue
            timer, adapter.timer = adapter.timer, StageTimer()
            now = dict(frames_mod.STATS)
            frames = {
                "clips": now["clips"] - seen["clips"],
                "seconds": now["seconds"] - seen["seconds"],
                "stored": now["stored"] - seen["stored"],
                "requests": now["requests"] - seen["requests"],
            }
            seen = now
            stages = {
                s: (timer.seconds[s], timer.counts[s]) for s in timer.seconds if timer.counts[s] or timer.seconds[s]
            }
            timing = {"stages": stages, "intervals": list(timer.generate_intervals), "frames": frames}
            conn.send(("answers", (results, timing)))


def _picklable(res: Any) -> Any:
    """An answer, or its exception if that pickles (the run logs `type: message`), else an AdapterError that says
    the same."""
    if not isinstance(res, BaseException):
        return res
    try:
        pickle.loads(pickle.dumps(res))
        return res
    except Exception:  # noqa: BLE001
        return AdapterError(f"{type(res).__name__}: {res}")
