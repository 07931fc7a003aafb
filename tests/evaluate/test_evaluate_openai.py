"""The openai adapter against a local chat-completions server (stdlib http.server, threaded, 127.0.0.1) that
fails on purpose: timeouts, 429, 500, malformed bodies. Nothing may be lost or mixed up."""

import base64
import hashlib
import json
import os
import tempfile
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from voebench.cli import main
from voebench.evaluate.models.base import AdapterError, Request
from voebench.evaluate.models.openai import OpenAIAdapter

FAILURES = ["timeout", "429", "500", "malformed", "nochoices", "503"]


def _digest(text):
    return hashlib.sha256(text.encode()).hexdigest()[:10]


class Server:
    """Each distinct request (by its messages) first fails once with the next failure of FAILURES, then
    succeeds with 'Yes. q=<digest of the last user text>'. `always_fail` digests get HTTP 500 forever."""

    def __init__(self, fail_first=True, slow=1.0):
        self.seen: dict[str, int] = {}
        self.bodies: list[dict] = []
        self.headers: list[dict] = []
        self.always_fail: set[str] = set()
        self.lock = threading.Lock()
        self.fail_first = fail_first
        self.slow = slow
        self.delay = 0.0
        self.n_fail = 0
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def _send(self, code, payload: bytes, extra=None):
                try:
                    self.send_response(code)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(payload)))
                    for k, v in (extra or {}).items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(payload)
                except (BrokenPipeError, ConnectionResetError):
                    pass

            def do_POST(self):
                if self.path != "/v1/chat/completions":
                    return self._send(404, b'{"error": "not found"}')
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                msgs = body["messages"]
                last = msgs[-1]["content"]
                text = last if isinstance(last, str) else [p["text"] for p in last if p["type"] == "text"][0]
                key = hashlib.sha256(json.dumps(msgs, sort_keys=True).encode()).hexdigest()
                with server.lock:
                    n = server.seen.get(key, 0)
                    server.seen[key] = n + 1
                    server.bodies.append(body)
                    server.headers.append(dict(self.headers))
                    order = len(server.seen)
                if _digest(text) in server.always_fail:
                    return self._send(500, b'{"error": "down"}')
                if server.fail_first and n == 0:
                    kind = FAILURES[order % len(FAILURES)]
                    with server.lock:
                        server.n_fail += 1
                    if kind == "timeout":
                        time.sleep(server.slow)
                        return self._send(200, b'{"choices": [{"message": {"content": "late"}}]}')
                    if kind == "429":
                        return self._send(429, b'{"error": "slow down"}', {"Retry-After": "0"})
                    if kind in ("500", "503"):
                        return self._send(int(kind), b"oops")
                    if kind == "malformed":
                        return self._send(200, b'{"choices": [{"message": {"content": "Yes')
                    return self._send(200, b'{"object": "chat.completion"}')
                if server.delay:
                    time.sleep(server.delay)
                answer = f"Yes. q={_digest(text)}"
                self._send(
                    200, json.dumps({"choices": [{"message": {"role": "assistant", "content": answer}}]}).encode()
                )

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def _records(run):
    with open(os.path.join(run, "samples.jsonl")) as fh:
        return [json.loads(line) for line in fh]


ARGS = ["--timeout", "0.4", "--backoff", "0.01", "--retries", "4", "--concurrency", "4", "--no-progress"]


def test_failures_are_retried_and_nothing_is_lost(tiny_set, tmp_path, monkeypatch):
    monkeypatch.setenv("MY_KEY", "sekret")
    run = str(tmp_path / "run")
    with Server() as srv:
        rc = main(
            [
                "evaluate",
                tiny_set,
                "--model",
                f"openai:tiny-vlm@{srv.url}",
                "--out",
                run,
                "--strategy",
                "cot",
                "--tests",
                "shape,t09_gravity",
                "--repeats",
                "2",
                "--num-frames",
                "3",
                "--api-key-env",
                "MY_KEY",
                *ARGS,
            ]
        )
    assert rc == 0
    recs = _records(run)
    assert len(recs) == (4 + 4) * 2
    assert srv.n_fail >= 6  # every failure kind happened
    for r in recs:
        # each answer belongs to its own question (no mix-up across threads and retries)
        for turn, resp in zip(r["turns"], r["responses"]):
            assert resp == f"Yes. q={_digest(turn['text'])}"
        assert r["parsed"] == "yes"
    assert all(h.get("Authorization") == "Bearer sekret" for h in srv.headers)
    ok_bodies = [b for b in srv.bodies if b["messages"][-1]]
    b = ok_bodies[0]
    assert b["model"] == "tiny-vlm" and isinstance(b["seed"], int) and b["max_tokens"] == 32
    first = b["messages"][0]
    assert first["role"] == "user" and first["content"][0]["type"] == "video_url"
    url = first["content"][0]["video_url"]["url"]
    assert url.startswith("data:video/mp4;base64,")
    # the server gets exactly the 3 sampled frames, re-encoded
    from voebench.evaluate import frames

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "sent.mp4")
        with open(path, "wb") as fh:
            fh.write(base64.b64decode(url.split(",", 1)[1]))
        sent = frames.read_frames(path, [0, 1, 2])
        assert sent.shape == (3, 48, 64, 3)
        with pytest.raises(RuntimeError):
            frames.read_frames(path, [3])
    # multi-turn: the second request carries the model's first reply and no second video
    two = [b for b in srv.bodies if len(b["messages"]) == 3][0]
    assert [m["role"] for m in two["messages"]] == ["user", "assistant", "user"]
    assert isinstance(two["messages"][2]["content"], str)

    # everything is cached: a rerun makes no request at all
    with Server(fail_first=False) as srv2:
        assert (
            main(
                [
                    "evaluate",
                    tiny_set,
                    "--model",
                    f"openai:tiny-vlm@{srv2.url}",
                    "--out",
                    run,
                    "--strategy",
                    "cot",
                    "--tests",
                    "shape,t09_gravity",
                    "--repeats",
                    "2",
                    "--num-frames",
                    "3",
                    *ARGS,
                ]
            )
            == 0
        )
    assert srv2.bodies == []


def test_give_up_then_resume_asks_only_the_failed(tiny_set, tmp_path):
    run = str(tmp_path / "run")
    bad = "A ball is on the table. Is this true? Answer only with yes or no."
    with Server(fail_first=False) as srv:
        srv.always_fail.add(_digest(bad))
        rc = main(
            [
                "evaluate",
                tiny_set,
                "--model",
                f"openai:m@{srv.url}",
                "--out",
                run,
                "--tests",
                "shape",
                "--repeats",
                "1",
                *ARGS,
            ]
        )
    assert rc == 1
    recs = _records(run)
    failed = [r for r in recs if r["correct"] is None]
    assert len(failed) == 2 and all("gave up after 5 attempts" in r["error"] for r in failed)
    assert sum(1 for b in srv.bodies if b["messages"][-1]["content"][-1]["text"] == bad) == 2 * 5
    with Server(fail_first=False) as srv2:
        assert (
            main(
                [
                    "evaluate",
                    tiny_set,
                    "--model",
                    f"openai:m@{srv2.url}",
                    "--out",
                    run,
                    "--tests",
                    "shape",
                    "--repeats",
                    "1",
                    *ARGS,
                ]
            )
            == 0
        )
    assert len(srv2.bodies) == 2
    assert all(r["correct"] is not None for r in _records(run))


def test_frames_mode_and_client_errors(tiny_set):
    from voebench.evaluate.tasks import build_samples, load_manifest, select
    from voebench.evaluate.run import EvalConfig, EvalRunner

    m = load_manifest(tiny_set)
    s = build_samples(m, select(m, tests=["shape"]), "zero-shot")[0]
    runner = EvalRunner.__new__(EvalRunner)
    runner.cfg = EvalConfig("zero-shot", num_frames=4, system_prompt="Be brief.")
    runner._frames = {}
    from voebench.evaluate.run import EvalJob

    msgs = runner.messages(EvalJob(s, 0, 1), 0)
    with Server(fail_first=False) as srv:
        a = OpenAIAdapter("m", srv.url, video_mode="frames", backoff=0.01, max_retries=1)
        out = a.generate([Request(msgs, 5, 0, 0, 1, s)])
        assert out[0].startswith("Yes. q=")
        body = srv.bodies[-1]
        assert body["messages"][0] == {"role": "system", "content": "Be brief."}
        parts = body["messages"][1]["content"]
        assert [p["type"] for p in parts] == ["image_url"] * 4 + ["text"]
        assert parts[0]["image_url"]["url"].startswith("data:image/jpeg;base64,")
        assert body["seed"] == 5
        # a 4xx other than 429 is not retried
        bad = OpenAIAdapter("m", srv.url.replace("/v1", "/nope"), backoff=0.01, max_retries=3)
        n = len(srv.bodies)
        res = bad.generate([Request(msgs, 5, 0, 0, 1, s)])
        assert isinstance(res[0], AdapterError) and "HTTP 404" in str(res[0])
        assert len(srv.bodies) == n
    # nothing listening: connection errors are retried, then reported
    dead = OpenAIAdapter("m", "http://127.0.0.1:9/v1", backoff=0.01, max_retries=2, timeout=0.5)
    res = dead.generate([Request(msgs, 5, 0, 0, 1, s)])
    assert isinstance(res[0], AdapterError) and dead.stats["retries"] == 2
    with pytest.raises(ValueError):
        OpenAIAdapter("m", "localhost:8000")


def test_sigkill_mid_run_then_resume(tiny_set, tmp_path):
    """A real kill -9 of `voebench evaluate` while it talks to a server; the rerun asks only for what is missing."""
    import signal
    import subprocess
    import sys

    run = str(tmp_path / "run")
    args = [
        "evaluate",
        tiny_set,
        "--tests",
        "shape,t09_gravity",
        "--repeats",
        "2",
        "--num-frames",
        "2",
        "--out",
        run,
        "--concurrency",
        "1",
        "--batch-size",
        "1",
        "--backoff",
        "0.01",
        "--no-progress",
    ]
    total = 8 * 2
    with Server(fail_first=False) as srv:
        srv.delay = 0.1
        proc = subprocess.Popen(
            [sys.executable, "-m", "voebench", *args, "--model", f"openai:m@{srv.url}"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        deadline = time.time() + 60
        while len(srv.bodies) < 6 and time.time() < deadline and proc.poll() is None:
            time.sleep(0.02)
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    assert proc.returncode == -signal.SIGKILL
    with open(os.path.join(run, "cache.jsonl")) as fh:
        cached = sum(1 for line in fh if line.strip().endswith("}"))
    assert 5 <= cached < total
    with Server(fail_first=False) as srv2:
        assert main([*args, "--model", f"openai:m@{srv2.url}"]) == 0
    assert len(srv2.bodies) == total - cached
    recs = _records(run)
    assert len(recs) == total and all(r["parsed"] == "yes" for r in recs)
