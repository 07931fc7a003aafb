"""Running an evaluation: repeats with recorded seeds, the on-disk response cache, the per-sample log.

A run directory holds:

    run.json        the configuration (model, settings, strategy, repeats and their seeds, frame sampling, ...)
    cache.jsonl     append-only response cache; one line per model call, keyed by
                    sha256(model, settings, sample id, the conversation so far, repeat seed)
    samples.jsonl   one record per (sample, repeat): prompt turns, frames, raw responses, parsed answer, correctness
    results.json, report.md, accuracy.png   (evaluate.report)

Every model answer is appended to the cache (and flushed) as soon as it arrives, so a killed run loses at most
the calls in flight; running the same command again asks the model only for the calls not in the cache.
Multi-turn strategies (CoT, one-shot) are real conversations: turn 2's request contains the model's own turn-1
reply, so it is keyed (and asked) only once that reply exists.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass, field
from typing import Any

from voebench import __version__
from voebench.evaluate import cold_start
from voebench.evaluate import frames as frames_mod
from voebench.evaluate.models.base import Adapter, Request
from voebench.evaluate.parsing import score
from voebench.evaluate.tasks import Sample
from voebench.evaluate.timing import GpuSampler, StageTimer, timed

CACHE = "cache.jsonl"
SAMPLES = "samples.jsonl"
RUN = "run.json"


def repeat_seeds(base_seed: int, repeats: int) -> list[int]:
    """One seed per repeat: first 4 bytes of sha256('<base>/repeat/<r>'), masked to 31 bits."""
    out = []
    for r in range(repeats):
        h = hashlib.sha256(f"{base_seed}/repeat/{r}".encode()).digest()
        out.append(int.from_bytes(h[:4], "little") & 0x7FFFFFFF)
    return out


class ResponseCache:
    """Append-only JSONL: {"key", "response", "model", "sample_id", "repeat", "turn", "time"} per line. A torn last
    line (killed mid-write) is ignored on load."""

    def __init__(self, path: str):
        self.path = path
        self.data: dict[str, dict] = {}
        self.torn = 0
        if os.path.exists(path):
            with open(path, "rb") as fh:
                raw = fh.read()
            for line in raw.split(b"\n"):
                if not line.strip():
                    continue
                try:
                    rec = json.loads(line)
                    self.data[rec["key"]] = rec
                except (ValueError, KeyError):
                    self.torn += 1
            if raw and not raw.endswith(b"\n"):  # start our appends on a fresh line
                with open(path, "ab") as fh:
                    fh.write(b"\n")
        self.fh = open(path, "a", encoding="utf-8")  # noqa: SIM115 - kept open for the run

    def get(self, key: str) -> dict | None:
        return self.data.get(key)

    def put(self, key: str, response: str, **meta) -> None:
        rec = {"key": key, "response": response, **meta, "time": round(time.time(), 3)}
        self.fh.write(json.dumps(rec, ensure_ascii=False) + "\n")
        self.fh.flush()
        self.data[key] = rec

    def sync(self) -> None:
        self.fh.flush()
        os.fsync(self.fh.fileno())

    def close(self) -> None:
        if not self.fh.closed:
            self.sync()
            self.fh.close()

    def __len__(self) -> int:
        return len(self.data)


def _canonical(messages: list[dict]) -> list[dict]:
    """The conversation as it goes into the cache key: video by manifest path and frame indices (not absolute
    path, so a moved dataset keeps its cache)."""
    out = []
    for m in messages:
        c = {"role": m["role"], "text": m["text"]}
        if m.get("video"):
            c["video"] = {"rel": m["video"]["rel"], "indices": list(m["video"]["indices"])}
            if m["video"].get("as_images"):  # shown as separate images: a different question to the model
                c["video"]["as_images"] = True  # (only when set, so the keys of video turns stay as they were)
        out.append(c)
    return out


def cache_key(model: str, settings: dict, sample_id: str, messages: list[dict], seed: int) -> str:
    payload = json.dumps(
        {"model": model, "settings": settings, "sample": sample_id, "turns": _canonical(messages), "seed": seed},
        sort_keys=True,
        ensure_ascii=False,
    )
    return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass
class EvalJob:
    """One sample asked once (repeat ``repeat``, sampling seed ``seed``): its responses, turn by turn."""

    sample: Sample
    repeat: int
    seed: int
    responses: list[str] = field(default_factory=list)
    cached: list[bool] = field(default_factory=list)
    error: str | None = None

    @property
    def done(self) -> bool:
        return len(self.responses) == len(self.sample.turns)


@dataclass
class EvalConfig:
    """How a model is asked: prompt strategy, repeats and their seed, frames per video, system prompt."""

    strategy: str
    repeats: int = 3
    seed: int = 0
    num_frames: int | None = 8
    fps: float | None = None
    system_prompt: str | None = None
    # decoding processes (0: decode in threads of this process and preprocess in line, the original path); with
    # workers, clips are decoded `prefetch_batches` batches ahead and the adapter prepares the next batch meanwhile
    num_workers: int = 0
    prefetch_batches: int = 2
    frame_cache_mb: int = 2048  # with workers: decoded clips kept, so a video is decoded once for all its questions
    #: the decoded-frame store on disk (evaluate/frame_store.py), shared by runs, models and repeats; None: off
    frame_store: str | None = None
    #: one discarded batch before the first timed one, where the adapter has a warm-up (hf on CUDA: kernels chosen
    #: for these shapes, the allocator's pools): the speed after it is the steady one; off by default, because it
    #: costs a whole run one batch's work (measured: docs/evaluate.md, "The normal command, cold")
    warmup: bool = False
    #: `VOEBENCH_WARMUP=blank` (without `warmup`): one discarded batch of black frames first, overlapped with the real
    #: first batch's decoding and preparation (hf on CUDA, `HFAdapter.warm_up_blank`). Off by default: measured on an
    #: H200 it did not shorten a cold run (docs/evaluate.md, "The third pass"); it pays a static cache's compile
    blank_warmup: bool = field(default_factory=lambda: os.environ.get("VOEBENCH_WARMUP", "").strip().lower() == "blank")
    #: `--batch-size auto` (evaluate/batch_size.py): before the first batch, the adapter's batch size becomes the
    #: largest that fits on the GPU (searched once, then read from `batch_size_cache`), a small default on a CPU
    batch_size_auto: bool = False
    batch_size_cache: str | None = None
    #: the decoding workers were started and the first clips queued before the model loaded (evaluate/cold_start.py,
    #: by the CLI): the runner keeps those workers, and counts those clips in its decode stats
    decoding_started: bool = False


class EvalRunner:
    """Asks one model adapter every sample ``repeats`` times, caching each response, and writes the run folder
    (not to be confused with the generator's runner, which renders videos)."""

    def __init__(
        self,
        adapter: Adapter,
        samples: list[Sample],
        out_dir: str,
        config: EvalConfig,
        progress: bool = True,
        extra_run_info: dict | None = None,
    ):
        self.adapter = adapter
        self.samples = samples
        self.out = out_dir
        self.cfg = config
        self.progress = progress
        self.extra = extra_run_info or {}
        self.seeds = repeat_seeds(config.seed, config.repeats)
        self.settings = adapter.settings()
        self.calls = 0
        self.failed = 0
        self.warmup_s: float | None = None  # the adapter's warm-up before the first timed batch (issue 28)
        self.warmup_kind: str | None = None  # "batch" (--warmup: the first batch, discarded) or "blank" (black frames)
        self.first_answer_s: float | None = None  # from the start of `run` to the first answer written
        self.first_answer_age: float | None = None  # the process's age then (evaluate/cold_start.py)
        self.batch_size_auto: dict | None = None  # how `--batch-size auto` chose (evaluate/batch_size.py)
        self._frames: dict[tuple, list[int]] = {}
        self.timer = StageTimer()
        self.timing: dict | None = None

    # -- conversations ----------------------------------------------------------------------------------------
    def frame_indices(self, v) -> list[int]:
        k = (v.n_frames, v.fps)
        if k not in self._frames:
            self._frames[k] = frames_mod.sample_frame_indices(v.n_frames, self.cfg.num_frames, self.cfg.fps, v.fps)
        return self._frames[k]

    def messages(self, job: EvalJob, turn: int) -> list[dict]:
        msgs: list[dict] = []
        if self.cfg.system_prompt:
            msgs.append({"role": "system", "text": self.cfg.system_prompt})
        for t in range(turn + 1):
            tr = job.sample.turns[t]
            m: dict[str, Any] = {"role": "user", "text": tr.text}
            if tr.video is not None:
                v = tr.video
                m["video"] = {
                    "rel": v.rel,
                    "path": v.path,
                    "indices": self.frame_indices(v),
                    "fps": v.fps,
                    "n_frames": v.n_frames,
                    "width": v.width,
                    "height": v.height,
                }
            msgs.append(m)
            if t < turn:
                msgs.append({"role": "assistant", "text": job.responses[t]})
        return msgs

    def key(self, job: EvalJob, turn: int) -> str:
        return cache_key(self.adapter.name, self.settings, job.sample.sample_id, self.messages(job, turn), job.seed)

    def _advance_from_cache(self, job: EvalJob, cache: ResponseCache) -> None:
        while not job.done:
            rec = cache.get(self.key(job, len(job.responses)))
            if rec is None:
                return
            job.responses.append(rec["response"])
            job.cached.append(True)

    # -- records ----------------------------------------------------------------------------------------------
    def record(self, job: EvalJob) -> dict:
        s = job.sample
        rec = s.record()
        for t, tr in zip(rec["turns"], s.turns):
            t["frames"] = self.frame_indices(tr.video) if tr.video is not None else None
        final = job.responses[-1] if job.done else None
        rec.update(
            {
                "repeat": job.repeat,
                "seed": job.seed,
                "model": self.adapter.name,
                "settings": self.settings,
                "system_prompt": self.cfg.system_prompt,
                "responses": job.responses,
                "response": final,
                "cached": job.cached,
            }
        )
        if job.done:
            with timed(self.timer, "parse"):
                p = score(s.kind, final, s.truth, s.choices, s.test)
            rec.update(p.as_dict())
        else:
            rec.update({"parsed": None, "valid": None, "correct": None, "error": job.error or "not run"})
        return rec

    def _write_run_json(self, state: str, started: float, jobs: list[EvalJob], cache: ResponseCache) -> None:
        info = {
            "voebench_version": __version__,
            "state": state,
            "model": self.adapter.name,
            "settings": self.settings,
            "strategy": self.cfg.strategy,
            "repeats": self.cfg.repeats,
            "seed": self.cfg.seed,
            "repeat_seeds": self.seeds,
            "num_frames": self.cfg.num_frames,
            "fps": self.cfg.fps,
            "frame_decoder": frames_mod.decoder_name(),
            "frame_store": self.cfg.frame_store,
            "system_prompt": self.cfg.system_prompt,
            "n_samples": len(self.samples),
            "n_jobs": len(jobs),
            "n_done": sum(j.done for j in jobs),
            "n_failed": sum(1 for j in jobs if not j.done),
            "model_calls_this_run": self.calls,
            "cache_entries": len(cache),
            "started": started,
            "updated": time.time(),
            **self.extra,
        }
        stats = getattr(self.adapter, "stats", None)
        if stats:
            info["adapter_stats"] = dict(stats)
        info["num_workers"] = self.cfg.num_workers
        info["batch_size"] = int(getattr(self.adapter, "batch_size", 1))
        info["replicas"] = int(getattr(self.adapter, "replicas", 1))  # processes answering batches (models/replicas)
        if self.batch_size_auto is not None:
            info["batch_size_auto"] = self.batch_size_auto
        if self.timing is not None:
            info["timing"] = self.timing
        tmp = os.path.join(self.out, RUN + ".tmp")
        with open(tmp, "w", encoding="utf-8") as fh:
            json.dump(info, fh, indent=2)
        os.replace(tmp, os.path.join(self.out, RUN))

    # -- the loop ---------------------------------------------------------------------------------------------
    def remaining_calls(self, jobs: list[EvalJob]) -> int:
        return sum(len(j.sample.turns) - len(j.responses) for j in jobs if not j.done)

    def _request(self, j: EvalJob) -> Request:
        t = len(j.responses)
        return Request(self.messages(j, t), j.seed, j.repeat, t, len(j.sample.turns), j.sample)

    def _last_turn(self, j: EvalJob) -> Request:
        """The job's last (largest) request, earlier answers left empty: what `--batch-size auto` sizes batches by
        (one-shot's last turn shows two videos)."""
        last = len(j.sample.turns) - 1
        filled = EvalJob(j.sample, j.repeat, j.seed, responses=[*j.responses, *[""] * last][:last])
        return Request(self.messages(filled, last), j.seed, j.repeat, last, len(j.sample.turns), j.sample)

    def _clips_to_keep(self, todo: list[EvalJob], window: int) -> int:
        """Decoded clips to keep: every clip of the run when they fit `frame_cache_mb` (then each video is decoded
        once, whatever the number of questions, strategies' turns and repeats that show it), else a window."""
        clips: dict[tuple, int] = {}
        for j in todo:
            for tr in j.sample.turns:
                v = tr.video
                if v is not None:
                    idx = self.frame_indices(v)
                    clips[(v.path, tuple(idx))] = len(idx) * (v.width or 640) * (v.height or 480) * 3
        if sum(clips.values()) <= self.cfg.frame_cache_mb * 2**20:
            return len(clips) + 8
        return window

    def _finish_timing(self, wall: float, gpu: GpuSampler) -> None:
        st = frames_mod.STATS
        self.timer.add("decode", st["seconds"], st["clips"])
        t = self.timer.summary(wall)
        t["model_calls"] = self.calls
        t["calls_per_s"] = round(self.calls / wall, 3) if wall > 0 else None
        t["warmup_s"] = None if self.warmup_s is None else round(self.warmup_s, 3)
        t["warmup"] = self.warmup_kind
        after = wall - (self.warmup_s or 0.0)
        t["calls_per_s_after_warmup"] = round(self.calls / after, 3) if self.warmup_s and after > 0 else None
        t["time_to_first_answer_s"] = None if self.first_answer_s is None else round(self.first_answer_s, 3)
        # the whole process's view of a cold run (issue 28): its age at named points, the adapter's load split
        age = self.first_answer_age
        t["time_to_first_answer_from_start_s"] = None if age is None else round(age, 3)
        t["process"] = {
            "ages_s": dict(cold_start.MARKS),
            "adapter_load_s": getattr(self.adapter, "load_stats", None),
            "decoding_started_early": self.cfg.decoding_started,
        }
        t["batch_size_search_s"] = (self.batch_size_auto or {}).get("seconds")
        t["frame_reads"] = st["requests"]
        t["clips_decoded"] = st["clips"] - st["stored"]
        t["clips_from_store"] = st["stored"]
        t["num_workers"] = self.cfg.num_workers if bool(getattr(self.adapter, "decodes_video", False)) else 0
        t["gpu_utilisation"] = gpu.summary(self.timer)
        if os.environ.get("VOEBENCH_RECORD_INTERVALS") == "1":  # benches: busy share from their own GPU log
            t["generate_intervals"] = [[round(a, 3), round(b, 3)] for a, b in self.timer.generate_intervals]
        self.timing = t

    def run(self) -> list[EvalJob]:
        os.makedirs(self.out, exist_ok=True)
        started = time.time()
        cold_start.mark("runner_start")
        t_wall = self._t_wall = time.perf_counter()
        timer = self.timer
        self.adapter.timer = timer
        cache = ResponseCache(os.path.join(self.out, CACHE))
        jobs = [EvalJob(s, r, self.seeds[r]) for r in range(self.cfg.repeats) for s in self.samples]
        for j in jobs:
            self._advance_from_cache(j, cache)
        todo = [j for j in jobs if not j.done]
        total = self.remaining_calls(todo)
        decodes = bool(getattr(self.adapter, "decodes_video", False))
        pipelined = decodes and self.cfg.num_workers > 0 and bool(todo)
        self.adapter.pipelined = pipelined
        frames_mod.use_store(self.cfg.frame_store if decodes else None)  # before the workers: they take it along
        if decodes and self.cfg.frame_store:
            from voebench.evaluate.frame_store import FrameStore

            FrameStore(self.cfg.frame_store).sweep_stale()  # temporary files of killed runs, over an hour old
        if pipelined:  # first, before this run starts threads: the worker processes are forked
            frames_mod.use_workers(self.cfg.num_workers)
        if self.cfg.decoding_started:  # early decoding's clips, if the adapter did not queue them (cold_start.py)
            cold_start.release_decoding()
        else:
            cold_start.drop_decoding()
        if self.cfg.batch_size_auto and todo:  # trial batches of this run's longest request (once per GPU and model)
            from voebench.evaluate import batch_size

            reqs = [self._last_turn(j) for j in todo]
            try:
                self.batch_size_auto = batch_size.choose(
                    self.adapter, reqs, self.cfg.num_frames, self.cfg.fps, self.cfg.batch_size_cache
                )
            except BaseException:  # e.g. not even one conversation fits: leave nothing running
                if pipelined:
                    frames_mod.use_workers(0)
                    self.adapter.pipelined = False
                frames_mod.use_store(None)
                cache.close()
                raise
        chunk = max(1, int(getattr(self.adapter, "batch_size", 1)))
        # `--replicas N` (models/replicas.py): N batches of `chunk` answered at once, batch k by replica k; the
        # batches are the ones a one-process run cuts, so the answers are the same
        replicas = max(1, int(getattr(self.adapter, "replicas", 1)))
        span = chunk * replicas
        self._write_run_json("running", started, jobs, cache)
        samples_path = os.path.join(self.out, SAMPLES)
        log = open(samples_path + ".partial", "w", encoding="utf-8")  # noqa: SIM115
        for j in jobs:
            if j.done:
                log.write(json.dumps(self.record(j), ensure_ascii=False) + "\n")
        log.flush()
        bar = None
        if self.progress and total:
            from tqdm import tqdm

            bar = tqdm(total=total, desc=f"{self.adapter.name} calls", unit="call", dynamic_ncols=True)
        # jobs whose videos are decoded in the background while the model works (with workers: a bounded queue of
        # `prefetch_batches` batches, the current one first)
        if pipelined:  # at least two clips per worker in flight, so small batches keep every worker busy too
            ahead = max(chunk * max(1, self.cfg.prefetch_batches), 2 * self.cfg.num_workers)
        else:
            ahead = max(chunk, 8)
        if decodes:
            window = 2 * (chunk + ahead) + 8
            frames_mod.ensure_cache_size(self._clips_to_keep(todo, window) if pipelined else window)
        self_timed = bool(getattr(self.adapter, "timed_stages", False))
        # the adapter's processor reads the clips in the decoding workers (hf, VOEBENCH_PREPROCESS=workers): no
        # decoding ahead into this process, whose copies it would not read
        own_reads = bool(getattr(self.adapter, "preprocesses_in_workers", False))
        warm_up = getattr(self.adapter, "warm_up", None)
        if todo and self.cfg.warmup and callable(warm_up):
            t_warm = time.perf_counter()
            if warm_up([self._request(j) for j in todo[:span]]):
                self.warmup_s, self.warmup_kind = time.perf_counter() - t_warm, "batch"
        if self.cfg.warmup or not self.cfg.decoding_started:  # clips decoded before the run started are the run's
            frames_mod.reset_stats()
        blank = getattr(self.adapter, "warm_up_blank", None)
        if todo and not self.cfg.warmup and self.cfg.blank_warmup and callable(blank):
            # the first batch's clips decode and its inputs are prepared in the background meanwhile
            if decodes and not own_reads:
                frames_mod.prefetch(
                    (m["video"]["path"], m["video"]["indices"])
                    for j in todo[: chunk + ahead]
                    for m in self.messages(j, len(j.responses))
                    if m.get("video")
                )
            if pipelined:
                self.adapter.prefetch([self._request(j) for j in todo[:chunk]])
            t_warm = time.perf_counter()
            if blank([self._request(j) for j in todo[:chunk]]):
                self.warmup_s, self.warmup_kind = time.perf_counter() - t_warm, "blank"
        gpu = GpuSampler(self.adapter).__enter__()
        try:
            for i in range(0, len(todo), span):
                group = todo[i : i + span]
                batches = [group[k : k + chunk] for k in range(0, len(group), chunk)]
                if decodes and not own_reads:
                    frames_mod.prefetch(
                        (m["video"]["path"], m["video"]["indices"])
                        for j in todo[(i if pipelined else i + span) : i + span + ahead]
                        for m in self.messages(j, len(j.responses))
                        if m.get("video")
                    )
                if pipelined or replicas > 1:  # the adapter may prepare the next batch while it answers this one
                    self.adapter.prefetch([self._request(j) for j in todo[i + span : i + 2 * span] if not j.done])
                while True:
                    pendings = [p for p in ([j for j in b if not j.done and j.error is None] for b in batches) if p]
                    if not pendings:
                        break
                    requests = [[self._request(j) for j in p] for p in pendings]
                    if replicas > 1:
                        answered = self.adapter.generate_each(requests)  # type: ignore[attr-defined]
                    else:
                        answered = (self._generate(reqs, self_timed) for reqs in requests)
                    for pending, reqs, results in zip(pendings, requests, answered):
                        self._take(pending, reqs, results, cache, bar)
                lines = [json.dumps(self.record(j), ensure_ascii=False) + "\n" for j in group if j.done]
                with timer.stage("write"):
                    log.writelines(lines)
                    log.flush()
                    cache.sync()
        finally:
            gpu.__exit__(None, None, None)
            if pipelined:
                frames_mod.use_workers(0)
                self.adapter.pipelined = False
            frames_mod.use_store(None)
            if bar is not None:
                bar.close()
            log.close()
            cache.close()
            state = "complete" if all(j.done for j in jobs) else "incomplete"
            self._finish_timing(time.perf_counter() - t_wall, gpu)
            self._write_run_json(state, started, jobs, cache)
        # final log: every job in canonical order (failed ones with their error, unscored)
        tmp = samples_path + ".tmp"
        with open(tmp, "w", encoding="utf-8") as fh:
            for j in jobs:
                fh.write(json.dumps(self.record(j), ensure_ascii=False) + "\n")
        os.replace(tmp, samples_path)
        os.remove(samples_path + ".partial")
        return jobs

    def _generate(self, reqs: list[Request], self_timed: bool) -> list[str | BaseException]:
        """One batch from the adapter, timed as `generate` unless the adapter times its own stages."""
        with timed(None if self_timed else self.timer, "generate"):
            return self.adapter.generate(reqs)

    def _take(self, pending: list[EvalJob], reqs: list[Request], results: list, cache: ResponseCache, bar) -> None:
        """One batch's answers: each written to the cache as it comes, the job advanced (or its error kept)."""
        timer = self.timer
        if len(results) != len(reqs):
            raise RuntimeError(f"adapter returned {len(results)} answers for {len(reqs)} requests")
        for j, req, res in zip(pending, reqs, results):
            self.calls += 1
            if isinstance(res, BaseException):
                j.error = f"{type(res).__name__}: {res}"
                self.failed += 1
                continue
            key = cache_key(self.adapter.name, self.settings, j.sample.sample_id, req.messages, j.seed)
            with timer.stage("write"):
                cache.put(
                    key,
                    res,
                    model=self.adapter.name,
                    sample_id=j.sample.sample_id,
                    repeat=j.repeat,
                    turn=req.turn,
                )
            j.responses.append(res)
            j.cached.append(False)
            if self.first_answer_s is None:
                self.first_answer_s = time.perf_counter() - self._t_wall
                self.first_answer_age = cold_start.process_age()
            # a later turn may already be cached (a resumed run)
            self._advance_from_cache(j, cache)
        if bar is not None:
            bar.update(len(reqs))
            if self.failed:
                bar.set_postfix(failed=self.failed)
