"""`openai:<model>@<base-url>`: any OpenAI-compatible chat-completions server (vLLM, SGLang, llama.cpp, hosted APIs).

Standard library only (`urllib`), so it needs nothing beyond the core install. Video is sent one of three ways
(`video_mode`):
- ``video_url`` (default, for vLLM-style servers): the frames we sampled, re-encoded to a small H.264 mp4 and sent
  as a ``data:video/mp4;base64`` URL in a ``video_url`` part, so the server sees exactly the logged frames;
- ``video_file``: a ``file://`` URL of the original mp4 (a server on the same host, started with
  ``--allowed-local-media-path``; the server then samples the frames itself);
- ``frames``: the sampled frames as a list of ``image_url`` parts (JPEG data URLs), for image-only API models.

Request bodies (decoding and re-encoding the frames, base64) are built in their own bounded pool
(`encode_workers`), ahead of time for the batch the runner says comes next (`prefetch`), so the connections never
wait on the CPU: a request is handed to the connection pool only once its body is ready. Requests run in a thread
pool (`concurrency`), each with a timeout, and are retried with exponential backoff and jitter on 429, 5xx,
timeouts, connection errors and malformed bodies (honouring ``Retry-After``); other 4xx fail at once. A request
that still fails comes back as an exception: the runner keeps it out of the cache, so the next run asks again.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import http.client
import json
import os
import random
import threading
import time
import urllib.error
import urllib.request
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor, as_completed

from voebench.evaluate import frames as frames_mod
from voebench.evaluate.models.base import Adapter, AdapterError, Request
from voebench.evaluate.models.kinds.openai import VIDEO_MODES


class _Retryable(Exception):
    def __init__(self, msg: str, retry_after: float | None = None):
        super().__init__(msg)
        self.retry_after = retry_after


@functools.lru_cache(maxsize=64)
def _mp4_data_url(path: str, indices: tuple[int, ...], fps: float) -> str:
    clip = frames_mod.read_frames(path, indices)
    data = frames_mod.encode_mp4(clip, fps)
    return "data:video/mp4;base64," + base64.b64encode(data).decode("ascii")


@functools.lru_cache(maxsize=64)
def _frame_urls(path: str, indices: tuple[int, ...]) -> tuple[str, ...]:
    clip = frames_mod.read_frames(path, indices)
    try:
        enc: Callable[..., bytes]
        enc, mime = frames_mod.encode_jpeg, "image/jpeg"
        enc(clip[0])
    except ImportError:
        enc, mime = frames_mod.encode_png, "image/png"
    return tuple(f"data:{mime};base64," + base64.b64encode(enc(f)).decode("ascii") for f in clip)


class OpenAIAdapter(Adapter):
    def __init__(
        self,
        model: str,
        base_url: str,
        *,
        api_key: str | None = None,
        video_mode: str = "video_url",
        concurrency: int = 4,
        timeout: float = 120.0,
        max_retries: int = 6,
        backoff: float = 1.0,
        max_backoff: float = 60.0,
        max_tokens: int = 32,
        temperature: float | None = None,
        batch_size: int | None = None,
        extra_body: dict | None = None,
        encode_workers: int | None = None,
    ):
        if video_mode not in VIDEO_MODES:
            raise ValueError(f"video_mode must be one of {VIDEO_MODES}")
        if not base_url.startswith(("http://", "https://")):
            raise ValueError(f"base URL must start with http:// or https://, got {base_url!r}")
        self.model = model
        self.base_url = base_url.rstrip("/")
        self.url = self.base_url + "/chat/completions"
        self.api_key = api_key
        self.video_mode = video_mode
        self.concurrency = max(1, int(concurrency))
        self.timeout = float(timeout)
        self.max_retries = int(max_retries)
        self.backoff = float(backoff)
        self.max_backoff = float(max_backoff)
        self.max_tokens = int(max_tokens)
        self.temperature = temperature
        self.extra_body = dict(extra_body or {})
        self.name = f"openai:{model}"
        self.decodes_video = video_mode != "video_file"
        self.batch_size = max(self.concurrency, int(batch_size or 0), 1)
        self._lock = threading.Lock()
        self.stats = {"requests": 0, "retries": 0, "failed": 0}
        # building bodies is CPU work (decode, H.264/JPEG encode, base64): bounded by the cores, not the connections
        self.encode_workers = max(1, int(encode_workers or min(self.concurrency, os.cpu_count() or 2)))
        self._encode_pool: ThreadPoolExecutor | None = None
        self._payloads: OrderedDict[str, Future] = OrderedDict()

    def settings(self) -> dict:
        return {
            "model": self.model,
            "video_mode": self.video_mode,
            "max_tokens": self.max_tokens,
            "temperature": self.temperature,
            "extra_body": self.extra_body,
        }

    # -- request body ----------------------------------------------------------------------------------------
    def _content(self, m: dict) -> list[dict] | str:
        v = m.get("video")
        if not v:
            return m["text"]
        parts: list[dict] = []
        idx = tuple(int(i) for i in v["indices"])
        if v.get("as_images"):  # an image query (evaluate/predict): the chosen frames as separate images
            parts.extend({"type": "image_url", "image_url": {"url": u}} for u in _frame_urls(v["path"], idx))
        elif self.video_mode == "video_url":
            sampled_fps = len(idx) * float(v["fps"]) / float(v["n_frames"])
            parts.append({"type": "video_url", "video_url": {"url": _mp4_data_url(v["path"], idx, sampled_fps)}})
        elif self.video_mode == "video_file":
            parts.append({"type": "video_url", "video_url": {"url": "file://" + os.path.abspath(v["path"])}})
        else:
            parts.extend({"type": "image_url", "image_url": {"url": u}} for u in _frame_urls(v["path"], idx))
        parts.append({"type": "text", "text": m["text"]})
        return parts

    def body(self, r: Request) -> dict:
        msgs = []
        for m in r.messages:
            msgs.append({"role": m["role"], "content": self._content(m) if m["role"] == "user" else m["text"]})
        body = {"model": self.model, "messages": msgs, "max_tokens": self.max_tokens, "seed": int(r.seed)}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        body.update(self.extra_body)
        return body

    # -- transport -------------------------------------------------------------------------------------------
    def _post(self, payload: bytes) -> str:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.api_key:
            headers["Authorization"] = f"Bearer {self.api_key}"
        req = urllib.request.Request(self.url, data=payload, headers=headers, method="POST")
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                raw = resp.read()
        except urllib.error.HTTPError as e:
            detail = e.read()[:300].decode("utf-8", "replace") if e.fp else ""
            if e.code == 429 or e.code >= 500:
                ra = e.headers.get("Retry-After") if e.headers else None
                try:
                    ra_s = float(ra) if ra is not None else None
                except ValueError:
                    ra_s = None
                raise _Retryable(f"HTTP {e.code}: {detail}", ra_s) from None
            raise AdapterError(f"HTTP {e.code} from {self.url}: {detail}") from None
        except (urllib.error.URLError, TimeoutError, ConnectionError, http.client.HTTPException, OSError) as e:
            raise _Retryable(f"{type(e).__name__}: {e}") from None
        try:
            data = json.loads(raw)
            content = data["choices"][0]["message"]["content"]
        except (ValueError, KeyError, IndexError, TypeError):
            raise _Retryable(f"malformed response body: {raw[:200]!r}") from None
        if content is None:
            raise _Retryable("response has no message content")
        if isinstance(content, list):  # some servers return content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        return str(content)

    def call(self, r: Request) -> str:
        return self.send(self.payload(r))

    def payload(self, r: Request) -> bytes:
        t0 = time.time()
        data = json.dumps(self.body(r)).encode("utf-8")
        if self.timer is not None:
            self.timer.add("preprocess", time.time() - t0)
        return data

    @staticmethod
    def _payload_key(r: Request) -> str:
        return hashlib.sha256(json.dumps([r.messages, r.seed], sort_keys=True).encode()).hexdigest()

    def _payload_future(self, r: Request) -> Future:
        key = self._payload_key(r)
        with self._lock:
            fut = self._payloads.pop(key, None)
            if fut is None:
                if self._encode_pool is None:
                    self._encode_pool = ThreadPoolExecutor(self.encode_workers, thread_name_prefix="voebench-encode")
                fut = self._encode_pool.submit(self.payload, r)
        return fut

    def prefetch(self, requests: list[Request]) -> None:
        """Build the bodies of the requests that come next while this batch is on the wire."""
        for r in requests:
            key = self._payload_key(r)
            fut = self._payload_future(r)
            with self._lock:
                self._payloads[key] = fut
                while len(self._payloads) > 4 * max(self.batch_size, 1):  # hints not taken: forget the oldest
                    self._payloads.popitem(last=False)[1].cancel()

    def send(self, payload: bytes) -> str:
        attempt = 0
        while True:
            with self._lock:
                self.stats["requests"] += 1
            try:
                return self._post(payload)
            except _Retryable as e:
                if attempt >= self.max_retries:
                    with self._lock:
                        self.stats["failed"] += 1
                    raise AdapterError(f"gave up after {attempt + 1} attempts: {e}") from None
                delay = min(self.max_backoff, self.backoff * (2**attempt)) * (0.5 + random.random() / 2)
                if e.retry_after is not None:
                    delay = min(self.max_backoff, max(delay, e.retry_after))
                with self._lock:
                    self.stats["retries"] += 1
                time.sleep(delay)
                attempt += 1

    def generate(self, requests: list[Request]) -> list[str | BaseException]:
        def one(payload: Future) -> str | BaseException:
            try:
                return self.send(payload.result())
            except AdapterError as e:
                return e
            except Exception as e:  # noqa: BLE001 - e.g. a video that cannot be decoded
                return AdapterError(f"{type(e).__name__}: {e}")

        bodies = [self._payload_future(r) for r in requests]
        if len(requests) == 1 or self.concurrency == 1:
            return [one(b) for b in bodies]
        results: list[str | BaseException | None] = [None] * len(requests)
        with ThreadPoolExecutor(max_workers=min(self.concurrency, len(requests))) as pool:
            # a request takes a connection only once its body is built, in the order the bodies get ready
            index = {id(b): i for i, b in enumerate(bodies)}
            sent = {index[id(b)]: pool.submit(one, b) for b in as_completed(bodies)}
            for i, f in sent.items():
                results[i] = f.result()
        return [r if r is not None else AdapterError("no answer") for r in results]

    def close(self) -> None:
        if self._encode_pool is not None:
            self._encode_pool.shutdown(wait=True, cancel_futures=True)
            self._encode_pool = None
