"""Helpers of the human-study tests (tests/evaluate/test_humans_*.py, bench/bench_humans_load.py): a study server
in a subprocess (`voebench humans serve`, as users run it, so kill -9 kills a real server), a small HTTP client
for the participant API, scripted participants, and a plausibility-only set of any size (manifest only: the
design, the store and the report never open a video)."""

from __future__ import annotations

import http.client
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request

from contract_fixtures import complete_entry, write_dataset

from voebench.contract import manifest as mf

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`voebench humans serve SET --study STUDY` on a free loopback port. A study it makes has the server's
    minimum-viewing rule off (`--min-viewing off`: scripted participants answer at once) unless the arguments
    name `--min-viewing` (tests of the rule, the browser test, the load bench with participants who watch)."""

    def __init__(self, set_dir: str, study_dir: str, *create_args: str):
        self.set_dir, self.study_dir, self.args = set_dir, study_dir, create_args
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen | None = None

    def start(self) -> Server:
        cmd = [sys.executable, "-m", "voebench", "humans", "serve", self.set_dir, "--study", self.study_dir]
        cmd += [*self.args, "--port", str(self.port)]
        if "--min-viewing" not in self.args and not os.path.exists(os.path.join(self.study_dir, "study.sqlite3")):
            cmd += ["--min-viewing", "off"]
        self.log = open(os.path.join(os.path.dirname(self.study_dir), f"server-{self.port}.log"), "ab")
        self.proc = subprocess.Popen(cmd, cwd=ROOT, stdout=self.log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise AssertionError(f"server exited {self.proc.returncode}: {self.read_log()}")
            try:
                with urllib.request.urlopen(self.base + "/", timeout=1) as r:
                    if r.status == 200:
                        return self
            except OSError:
                time.sleep(0.1)
        raise AssertionError(f"server did not start: {self.read_log()}")

    def read_log(self) -> str:
        if not self.log.closed:
            self.log.flush()
        with open(self.log.name, errors="replace") as f:
            return f.read()[-3000:]

    def kill9(self) -> None:
        assert self.proc is not None
        os.kill(self.proc.pid, signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.kill9()
        self.log.close()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def request(base: str, method: str, path: str, body=None, raw: bytes | None = None, headers=None, timeout=10):
    """(status, parsed JSON or bytes, headers). `raw` sends bytes as they are (malformed bodies)."""
    data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
    h = {"Content-Type": "application/json"} if data is not None else {}
    h.update(headers or {})
    req = urllib.request.Request(base + path, data=data, method=method, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, payload, hdrs = r.status, r.read(), dict(r.headers)
    except urllib.error.HTTPError as e:
        status, payload, hdrs = e.code, e.read(), dict(e.headers)
    try:
        return status, json.loads(payload), hdrs
    except ValueError:
        return status, payload, hdrs


def answer_for(trial: dict, truth: str | None, rng: random.Random, accuracy: float):
    """A scripted participant's answer: right with probability `accuracy`; attention checks always right."""
    q = trial["question"]
    if trial["response"] == "watch":
        return "continue"
    if q.startswith("Attention check"):
        if trial["response"] == "slider":
            return 0 if "left" in q else 100
        return "yes" if "“Yes”" in q else "no"
    right = rng.random() < accuracy
    plausible = (truth == "yes") == right
    if trial["response"] == "slider":
        return rng.randint(0, 40) if plausible else rng.randint(60, 100)
    return "yes" if plausible else "no"


class Participant:
    """One scripted participant over HTTP. `acked` holds (position, answer) the server acknowledged."""

    def __init__(
        self,
        base: str,
        token: str,
        plan: dict[int, dict],
        accuracy: float = 0.8,
        seed: int = 0,
        set_dir: str | None = None,
        watch: bool = False,
    ):
        self.base, self.token, self.plan, self.set_dir = base, token, plan, set_dir
        self.watch = watch  # wait each trial's video length (n_frames / fps) after it is shown, as a viewer does
        self.rng = random.Random(seed)
        self.accuracy = accuracy
        self.acked: dict[int, object] = {}
        self.sent: dict[int, object] = {}  # the last answer sent per position (acknowledged or not)
        self.foreign: list[str] = []  # anything that looks like another participant's data
        self.videos = 0  # videos fetched (range requests) and checked to be this participant's own
        self.too_early = 0  # answers refused as sent before the video could have played through (425)

    def api(self, method, what, body=None):
        return request(self.base, method, f"/api/{self.token}/{what}", body)

    def check_video(self, position: int, rel: str) -> None:
        """Fetch the trial's video in two range requests; it must be this participant's own file."""
        assert self.set_dir is not None
        with open(os.path.join(self.set_dir, rel), "rb") as f:
            want = f.read()
        cut = len(want) // 2
        got = b""
        for first, last in ((0, cut - 1), (cut, len(want) - 1)):
            status, body, hdrs = request(
                self.base, "GET", f"/api/{self.token}/video/{position}", headers={"Range": f"bytes={first}-{last}"}
            )
            if status != 206 or hdrs.get("content-range") != f"bytes {first}-{last}/{len(want)}":
                self.foreign.append(f"video {position}: status {status}, {hdrs.get('content-range')}")
                return
            got += body
        if got != want:
            self.foreign.append(f"video {position}: not this participant's video")
        self.videos += 1

    def run(self, stop_after: int | None = None, pause: float = 0.0) -> bool:
        """Answer until done (True) or `stop_after` answers (False). Connection errors propagate."""
        n = 0
        while True:
            status, state, _ = self.api("GET", "state")
            assert status == 200, state
            if state["stage"] == "consent":
                self.api("POST", "consent", {"consent": True})
            elif state["stage"] == "instructions":
                self.api("POST", "instructions", {})
            elif state["stage"] == "done":
                return True
            else:
                shown = time.monotonic()
                t = state["trial"]
                if t["position"] in self.acked:
                    self.foreign.append(f"server offers answered trial {t['position']} again")
                spec = self.plan[t["position"]]
                if self.set_dir and t["video"] and spec.get("video_root") != "study":  # catch videos: the study's
                    self.check_video(t["position"], spec["video"])
                value = answer_for(t, spec.get("truth"), self.rng, self.accuracy)
                if spec.get("check") == "catch":  # a catch video: an attentive participant saw the dot or not
                    value = spec["expect"]
                body = {"position": t["position"], "answer": value, "rt_ms": 1000, "media": None}
                entry = spec.get("entry") or {}
                if self.watch and t["video"]:
                    time.sleep(max(0.0, entry["n_frames"] / entry["fps"] - (time.monotonic() - shown)))
                self.sent[t["position"]] = value
                status, ack, _ = self.api("POST", "answer", body)
                self.too_early += status == 425
                if status == 200:
                    self.acked[t["position"]] = value
                    n += 1
                    if stop_after is not None and n >= stop_after:
                        return False
                if pause:
                    time.sleep(pause)


def plans(study_dir: str) -> dict[int, dict[int, dict]]:
    """participant number -> position -> the trial as stored (what a scripted participant 'knows')."""
    from voebench.evaluate.humans.store import Study

    s = Study(study_dir)
    out: dict[int, dict[int, dict]] = {}
    for a in s.answers():
        out.setdefault(a["participant"], {})[a["position"]] = a["trial"]
    s.close()
    return out


def make_plausibility_set(root: str, tests: dict[str, int], suite: str = "grasp-l2", videos: bool = False) -> str:
    """A set of `tests` (test name -> pairs; each pair a plausible and an implausible video): manifest only, or
    with `videos` a small distinct stand-in file per video (the server never decodes them; a load test checks
    each participant receives exactly its own)."""
    os.makedirs(root, exist_ok=True)
    entries = []
    for n, (test, n_pairs) in enumerate(sorted(tests.items())):
        for i in range(n_pairs):
            for cond in ("plausible", "implausible"):
                stem = f"{i:05d}-{cond}"
                if videos:
                    os.makedirs(os.path.join(root, suite, test), exist_ok=True)
                    with open(os.path.join(root, suite, test, stem + ".mp4"), "wb") as f:
                        f.write(f"stand-in video {suite}/{test}/{stem}\n".encode() * 40)
                entries.append(
                    complete_entry(
                        {
                            "id": f"{suite}/{test}/{stem}",
                            "suite": suite,
                            "test": test,
                            "index": i,
                            "condition": cond,
                            "pair_id": f"{suite}/{test}/{i:05d}",
                            "video": f"{suite}/{test}/{stem}.mp4",
                            "states": f"{suite}/{test}/{stem}.h5",
                            "n_frames": 8,
                            "fps": 8,
                            "width": 64,
                            "height": 48,
                            "test_number": n + 1,
                            "prompts": [
                                {
                                    "kind": "plausibility",
                                    "text": "Is the trajectory of the ball plausible? Answer only with yes or no.",
                                    "answer": "yes" if cond == "plausible" else "no",
                                }
                            ],
                        }
                    )
                )
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    write_dataset(root)
    return root


def load_run(
    set_dir: str,
    study_dir: str,
    participants: int,
    per_participant: int = 10,
    kill_at: float = 0.5,
    pause: float = 0.01,
    platform: bool = False,
    min_viewing: str = "off",
) -> dict:
    """`participants` scripted participants at once over loopback HTTP; the server is killed with SIGKILL once
    `kill_at` of all answers are acknowledged, restarted on the same study, and everyone finishes. Returns the
    counts the load test checks: answers lost (acknowledged but not stored), answers stored that their participant
    did not send (another token's writes), trials left unanswered. `platform`: everyone arrives at once through the
    recruiting platform's study URL (STUDY/platform.json) and gets a slot there; counted: slots given twice.
    `min_viewing` "video": the server's minimum-viewing rule on, and every participant waits each video's length
    after its trial is shown before answering (as a viewer does); counted: answers refused as too early."""
    import threading
    from concurrent.futures import ThreadPoolExecutor

    from voebench.evaluate.humans.store import Study

    server = Server(
        set_dir,
        study_dir,
        "--protocol",
        "grasp",
        "--participants",
        str(participants),
        "--votes",
        "3",
        "--per-participant",
        str(per_participant),
        "--min-viewing",
        min_viewing,
    )
    if platform:
        write_platform(study_dir, server.base, idle_timeout_s=0)
    server.start()
    plan = plans(study_dir)
    s = Study(study_dir)
    tokens = s.tokens()
    total = len(s.answers())
    s.close()
    assigned: list[str | None] = []
    if platform:  # all at once: each slot must go to exactly one participant id
        starters = [PlatformParticipant(server.base, f"PID{n:08d}", "S1", {}, study_id="S") for n in range(len(tokens))]
        with ThreadPoolExecutor(participants) as pool:
            list(pool.map(lambda p: p.start(), starters))
        assigned = [p.token for p in starters]
    people = [
        Participant(server.base, tok, plan[n], accuracy=0.8, seed=n, set_dir=set_dir, watch=min_viewing == "video")
        for n, tok in tokens
    ]
    killed = threading.Event()
    t0 = time.monotonic()

    def go(p: Participant) -> bool:
        try:
            return p.run(pause=pause)
        except (OSError, http.client.HTTPException):  # the server died under us
            return False

    acked_at_kill = 0
    try:
        with ThreadPoolExecutor(participants) as pool:
            futures = [pool.submit(go, p) for p in people]
            if kill_at < 1:
                while sum(len(p.acked) for p in people) < kill_at * total and not all(f.done() for f in futures):
                    time.sleep(0.005)
                acked_at_kill = sum(len(p.acked) for p in people)
                server.kill9()
                killed.set()
            done_first = [f.result() for f in futures]
        if killed.is_set():
            server.start()
            with ThreadPoolExecutor(participants) as pool:
                done_second = list(pool.map(go, people))
        else:
            done_second = done_first
    finally:
        server.stop()
    elapsed = time.monotonic() - t0
    s = Study(study_dir)
    stored: dict[str, dict[int, object]] = {}
    unanswered = 0
    for a in s.answers():
        if a["answer"] is None:
            unanswered += 1
        else:
            stored.setdefault(tokens[a["participant"]][1], {})[a["position"]] = a["answer"]
    s.close()
    lost = sum(1 for p in people for pos, v in p.acked.items() if stored.get(p.token, {}).get(pos) != v)
    foreign = sum(1 for p in people for pos, v in stored.get(p.token, {}).items() if p.sent.get(pos) != v)
    return {
        "participants": participants,
        "trials": total,
        "acked": sum(len(p.acked) for p in people),
        "acked_before_kill": acked_at_kill,
        "killed": killed.is_set(),
        "finished": sum(done_second),
        "lost": lost,
        "foreign": foreign + sum(len(p.foreign) for p in people),
        "unanswered": unanswered,
        "videos_checked": sum(p.videos for p in people),
        "min_viewing": min_viewing,
        "too_early": sum(p.too_early for p in people),
        "seconds": round(elapsed, 2),
        **(
            {
                "platform_assigned": len({t for t in assigned if t is not None} & {t for _, t in tokens}),
                "slots_given_twice": len(assigned) - len(set(assigned)),
            }
            if platform
            else {}
        ),
    }


def write_platform(study_dir: str, base: str = "http://127.0.0.1", **over) -> dict:
    """STUDY/platform.json (evaluate/humans/platform.py) with one code and redirect URL per outcome, on `base`."""
    config = {
        "completion": {
            o: {"code": code, "url": f"{base}/?cc={code}"}
            for o, code in (("completed", "DONE1234"), ("screened_out", "SCRN5678"), ("returned", "RETN9012"))
        },
        **over,
    }
    os.makedirs(study_dir, exist_ok=True)
    with open(os.path.join(study_dir, "platform.json"), "w") as f:
        json.dump(config, f)
    return config


def stand_in_videos(set_dir: str) -> dict[bytes, dict]:
    """The content of each stand-in video of make_plausibility_set(videos=True) -> its manifest entry."""
    out = {}
    for e in mf.read_manifest(os.path.join(set_dir, mf.NAME)):
        with open(os.path.join(set_dir, e["video"]), "rb") as f:
            out[f.read()] = e
    return out


class PlatformParticipant:
    """A recruiting-platform participant over HTTP (evaluate/humans/platform.py): arrives through /start with its
    ids, then follows `behaviour`: "complete", "decline" (consent), "withdraw" (after `withdraw_after` answers),
    "fail_quiz" (every quiz attempt wrong), "fail_checks" (every attention check answered wrongly). Each video is
    fetched and recognised by its content (`videos`, stand_in_videos), so `seen` records what the participant was
    really sent: (position, "practice" | "check" (an attention check's video) | "judged", video entry or None for a
    catch video). `acked`: position -> answer the server
    acknowledged; `final`: the last state (done or ended, with its completion)."""

    def __init__(
        self,
        base: str,
        pid: str,
        session: str,
        videos: dict[bytes, dict],
        behaviour: str = "complete",
        quiz: list[int] | None = None,
        study_id: str = "STUDY0001",
        seed: int = 0,
        withdraw_after: int = 2,
    ):
        self.base, self.pid, self.session, self.study_id = base, pid, session, study_id
        self.videos, self.behaviour, self.quiz = videos, behaviour, quiz or []
        self.withdraw_after = withdraw_after
        self.rng = random.Random(seed)
        self.token: str | None = None
        self.seen: list[tuple[int, str, dict | None]] = []
        self.acked: dict[int, object] = {}
        self.final: dict | None = None

    def url(self) -> str:
        return f"/start?PROLIFIC_PID={self.pid}&STUDY_ID={self.study_id}&SESSION_ID={self.session}"

    def start(self) -> tuple[int, str]:
        """GET the study URL without following the redirect: (status, Location or the page's text)."""
        conn = http.client.HTTPConnection(self.base.split("//")[1], timeout=10)
        conn.request("GET", self.url())
        r = conn.getresponse()
        body, where = r.read().decode("utf-8", "replace"), r.getheader("location") or ""
        conn.close()
        if r.status == 303 and where.startswith("/p/"):
            self.token = where[3:]
        return r.status, where or body

    def api(self, method, what, body=None):
        return request(self.base, method, f"/api/{self.token}/{what}", body)

    def answer(self, t: dict):
        q = t["question"]
        if q.startswith("Attention check") and "red dot" not in q:
            right = answer_for(t, None, self.rng, 1.0)
            if self.behaviour != "fail_checks":
                return right
            return {"yes": "no", "no": "yes", 0: 100, 100: 0}[right]
        entry = None
        if t["video"]:
            status, content, _ = request(self.base, "GET", f"/api/{self.token}/video/{t['position']}")
            assert status == 200, (status, content)
            entry = self.videos.get(content)
            kind = "practice" if t["practice"] else "check" if q.startswith("Attention check") else "judged"
            self.seen.append((t["position"], kind, entry))
        truth = None if entry is None else ("yes" if entry["condition"] == "plausible" else "no")
        return answer_for(t, truth, self.rng, 0.8)

    def run(self) -> dict:
        """Through the session to its end; returns the final state."""
        for _ in range(10_000):  # bounded: a few hundred steps at most
            status, state, _ = self.api("GET", "state")
            assert status == 200, state
            stage = state["stage"]
            if stage in ("done", "ended"):
                self.final = state
                return state
            if stage == "consent":
                self.api("POST", "consent", {"consent": self.behaviour != "decline"})
            elif stage == "instructions":
                self.api("POST", "instructions", {})
            elif stage == "quiz":
                answers = list(self.quiz)
                if self.behaviour == "fail_quiz":
                    answers = [(a + 1) % len(q["choices"]) for a, q in zip(answers, state["quiz"])]
                self.api("POST", "quiz", {"answers": answers})
            elif stage == "about":
                self.api("POST", "about", {"demographics": None, "comment": None})
            elif stage == "trial":
                if self.behaviour == "withdraw" and len(self.acked) >= self.withdraw_after:
                    assert self.api("POST", "withdraw", {})[0] == 200
                    continue
                t = state["trial"]
                value = self.answer(t)
                status, ack, _ = self.api("POST", "answer", {"position": t["position"], "answer": value})
                if status == 200:
                    self.acked[t["position"]] = value
            else:
                raise AssertionError(f"unexpected stage {stage}")
        raise AssertionError("the session did not end")
