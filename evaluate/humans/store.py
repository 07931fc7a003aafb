"""The study in one SQLite file: its design, the participants (token, number, seed, consent) and every trial with
its answer.

Durability: the database runs in write-ahead-log mode with synchronous=FULL, so a transaction is on disk (the log
fsynced) when COMMIT returns; the server acknowledges an answer only after that, so an answer the browser was told
is saved survives a kill -9 of the server or a power cut. Each answer is its own transaction.

No personal data: a participant is a random token and a number; no name, address, IP or browser string is stored.
A recruiting-platform participant's (pseudonymous) platform ids are stored with their slot (platform.py): the
researcher needs them to approve the submission.

Timing (issue 25, defect 9): the page measures each response from the end of the video (`rt_ms`, when the answer
unlocks) and from its first frame (`rt_start_ms`), and says which key gave it (`response_key`, None for a click).
The server counts how often each trial was shown (`views`: every `GET state` that returns it, i.e. every page
load) and when it was first shown (`first_shown_at`). A trial shown more than once was reloaded: the page's clock
restarted and the video played again, so its RTs are not comparable (export: `rt_valid` false, `reloads`); the
server's own time from the first showing to the answer (`server_ms`, the original time base) is kept, and the
page's times must fit inside it (export.timing).

The researcher's texts, comprehension quiz and end questions (texts.py) are read when the study is opened: the
quiz gates the trials (`_started`), the end questions come after the last one (`about`).

Recruiting platform (platform.py, where STUDY/platform.json exists): `assign` gives a platform participant id the
next free slot in one IMMEDIATE transaction (a slot nobody has opened: no consent, no showing, no platform id), so
two browsers never get the same slot and a crash leaves either the whole assignment or none; a unique index on the
platform id makes a second slot for one id impossible even so. The same id with the same platform session goes
back to its own slot (a reload of the study URL); with another session it is refused and the refusal recorded
(`platform_refusals`). Each session ends with one outcome (`outcome`: completed, screened_out, returned, with
`outcome_reason`), recorded once; after a screened-out or returned outcome every write is refused. `active_at` is
the participant's last step (assignment, consent, a showing, an answer); a participant idle past the configured
timeout is marked returned with reason "timeout" when next seen.

The researcher's live monitor (monitor.py) is reached with its own secret token (`monitor_token`, in the meta
table), never a participant's.

Schema: version SCHEMA_VERSION; a study file of an older version is migrated when opened (columns added, its old
answers keep NULL where nothing was measured); a newer one is refused.
"""

from __future__ import annotations

import json
import os
import secrets
import sqlite3
import threading
import time
from collections.abc import Callable

from voebench.errors import UsageError
from voebench.evaluate.humans import platform, texts, viewing
from voebench.evaluate.humans.design import SLIDER_LABELS, SLIDER_MAX

NAME = "study.sqlite3"
#: 32 url-safe characters = 192 random bits.
TOKEN_BYTES = 24
TOKEN_CHARS = 32

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS participants (
    token TEXT PRIMARY KEY, number INTEGER UNIQUE NOT NULL, seed INTEGER NOT NULL,
    consent INTEGER, consent_at REAL, instructions_at REAL, finished_at REAL,
    quiz_attempts INTEGER, quiz_passed_at REAL, about_at REAL, demographics TEXT, comment TEXT);
CREATE TABLE IF NOT EXISTS trials (
    token TEXT NOT NULL REFERENCES participants(token), position INTEGER NOT NULL, spec TEXT NOT NULL,
    answer TEXT, rt_ms INTEGER, media TEXT, answered_at REAL,
    rt_start_ms INTEGER, response_key TEXT, views INTEGER, first_shown_at REAL,
    PRIMARY KEY (token, position));
"""
#: The platform flow's table and index (schema 4), created by the migration too.
_SCHEMA_4 = """
CREATE TABLE IF NOT EXISTS platform_refusals (
    at REAL NOT NULL, platform_pid TEXT NOT NULL, platform_session TEXT, reason TEXT NOT NULL);
CREATE UNIQUE INDEX IF NOT EXISTS participants_platform_pid ON participants(platform_pid);
"""
#: 1: the first schema; 2: rt_start_ms, response_key, views, first_shown_at (issue 25, defect 9); 3: the
#: comprehension quiz's quiz_attempts, quiz_passed_at, the optional end questions' about_at, demographics, comment
#: (texts.py); 4: the recruiting-platform flow's ids, assignment, activity and outcome (platform.py), the table of
#: refused sessions.
SCHEMA_VERSION = 4
#: Columns added after version 1, per table, with their types (the migration adds them to an older study file).
_ADDED = {
    "trials": {"rt_start_ms": "INTEGER", "response_key": "TEXT", "views": "INTEGER", "first_shown_at": "REAL"},
    "participants": {
        "quiz_attempts": "INTEGER",
        "quiz_passed_at": "REAL",
        "about_at": "REAL",
        "demographics": "TEXT",
        "comment": "TEXT",
        "platform_pid": "TEXT",
        "platform_study": "TEXT",
        "platform_session": "TEXT",
        "assigned_at": "REAL",
        "active_at": "REAL",
        "outcome": "TEXT",
        "outcome_at": "REAL",
        "outcome_reason": "TEXT",
    },
}
#: The answer keys of a yes/no trial (participants with an even number; odd numbers get them swapped, so the hand
#: that answers "yes" is counterbalanced). Slider and watch trials are submitted with Enter.
DEFAULT_KEYS = {"yes": "f", "no": "j"}
SUBMIT_KEY = "Enter"
#: The longest free-text comment (characters).
MAX_COMMENT = 1000
#: Outcomes after which the participant can do nothing more (platform.py).
ENDED = ("screened_out", "returned")


class Refused(Exception):
    """A request the study refuses: HTTP status and a message for the participant's page; `retry_after_ms` where
    the same request will be accepted later (an answer sent before its video could have played through)."""

    def __init__(self, status: int, message: str, retry_after_ms: int | None = None):
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after_ms = retry_after_ms


def study_path(study_dir: str) -> str:
    return os.path.join(study_dir, NAME)


def _connect(path: str) -> sqlite3.Connection:
    con = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=10.0)
    mode = con.execute("PRAGMA journal_mode=WAL").fetchone()[0]
    if str(mode).lower() != "wal":
        raise UsageError(f"{path}: the file system refuses SQLite's write-ahead log (journal_mode={mode})")
    con.execute("PRAGMA synchronous=FULL")
    con.execute("PRAGMA foreign_keys=ON")
    return con


class Study:
    """One open study file. Thread-safe: one connection, one lock (answers are tiny; fsync dominates)."""

    def __init__(self, study_dir: str):
        path = study_path(study_dir)
        if not os.path.isfile(path):
            raise UsageError(
                f"{study_dir}: no study here (no {NAME}); `voebench humans serve SET --study DIR` makes one"
            )
        self.dir = study_dir
        self.lock = threading.Lock()
        #: the study's clock (seconds): showings, answers, activity; tests may replace it
        self.clock: Callable[[], float] = time.time
        #: video id -> duration (ms) for the minimum-viewing rule where a trial keeps none (viewing.py; a study
        #: made before trials kept n_frames and fps: filled from the set's manifest by study.open_for_serving)
        self.fallback_ms: dict[str, int] = {}
        try:
            self.con = _connect(path)
            self.meta = json.loads(self.con.execute("SELECT value FROM meta WHERE key='study'").fetchone()[0])
        except (sqlite3.DatabaseError, TypeError, ValueError) as e:
            raise UsageError(f"{path}: not a voebench study file ({e})") from None
        self._migrate(path)
        try:
            self.texts = texts.load(study_dir)  # the researcher's pages and quiz (texts.py)
            self.platform = platform.load(study_dir)  # the recruiting platform's configuration, or None
        except UsageError:
            self.con.close()
            raise

    def _migrate(self, path: str) -> None:
        """Bring an older study file to SCHEMA_VERSION (one transaction: columns added, nothing else changes);
        refuse a file of a newer version, or one this user cannot write (one line each)."""
        row = self.con.execute("SELECT value FROM meta WHERE key='schema'").fetchone()
        version = int(row[0]) if row else 1
        if version > SCHEMA_VERSION:
            self.con.close()
            raise UsageError(
                f"{path}: study schema {version} is newer than this voebench reads ({SCHEMA_VERSION}); upgrade voebench"
            )
        missing = []
        for table, columns in _ADDED.items():
            have = {r[1] for r in self.con.execute(f"PRAGMA table_info({table})")}
            missing += [(table, k, v) for k, v in columns.items() if k not in have]
        if version == SCHEMA_VERSION and not missing:
            return
        try:
            self.con.execute("BEGIN IMMEDIATE")
            for table, name, kind in missing:
                self.con.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
            for statement in _SCHEMA_4.split(";"):
                if statement.strip():
                    self.con.execute(statement)
            self.con.execute("INSERT OR REPLACE INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
            self.con.execute("COMMIT")
        except sqlite3.DatabaseError as e:
            if self.con.in_transaction:
                self.con.execute("ROLLBACK")
            self.con.close()
            raise UsageError(
                f"{path}: a study of schema {version} needs updating to {SCHEMA_VERSION} and the file cannot be "
                f"written ({e})"
            ) from None

    # -- creation -----------------------------------------------------------------------------------------------
    @staticmethod
    def create(study_dir: str, meta: dict, plans: list[list[dict]], seeds: list[int]) -> Study:
        """Write a new study: `meta` (design, set, versions), one token per plan, every trial unanswered."""
        os.makedirs(study_dir, exist_ok=True)
        path = study_path(study_dir)
        if os.path.exists(path):
            raise UsageError(f"{path}: a study exists already")
        tmp = path + ".creating"
        for stale in (tmp, tmp + "-wal", tmp + "-shm"):
            if os.path.exists(stale):
                os.remove(stale)
        con = _connect(tmp)
        con.executescript(_SCHEMA)
        for name, kind in _ADDED["participants"].items():
            if name.startswith(("platform_", "assigned_", "active_", "outcome")):
                con.execute(f"ALTER TABLE participants ADD COLUMN {name} {kind}")
        con.executescript(_SCHEMA_4)
        con.execute("BEGIN IMMEDIATE")
        con.execute("INSERT INTO meta VALUES ('study', ?)", (json.dumps({"keys": DEFAULT_KEYS, **meta}),))
        con.execute("INSERT INTO meta VALUES ('schema', ?)", (str(SCHEMA_VERSION),))
        con.execute("INSERT INTO meta VALUES ('monitor', ?)", (secrets.token_urlsafe(TOKEN_BYTES),))
        for number, (trials, seed) in enumerate(zip(plans, seeds)):
            token = secrets.token_urlsafe(TOKEN_BYTES)
            con.execute("INSERT INTO participants (token, number, seed) VALUES (?, ?, ?)", (token, number, seed))
            con.executemany(
                "INSERT INTO trials (token, position, spec, views) VALUES (?, ?, ?, 0)",
                [(token, t["position"], json.dumps(t)) for t in trials],
            )
        con.execute("COMMIT")
        con.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        con.close()
        os.replace(tmp, path)  # a study file exists only whole
        return Study(study_dir)

    def close(self) -> None:
        with self.lock:
            self.con.close()

    # -- reads ----------------------------------------------------------------------------------------------------
    def tokens(self) -> list[tuple[int, str]]:
        with self.lock:
            return [(int(n), t) for n, t in self.con.execute("SELECT number, token FROM participants ORDER BY number")]

    def monitor_token(self) -> str:
        """The researcher's monitor token (monitor.py), made and stored on first use for a study made before it."""
        with self.lock:
            row = self.con.execute("SELECT value FROM meta WHERE key='monitor'").fetchone()
            if row:
                return str(row[0])
            token = secrets.token_urlsafe(TOKEN_BYTES)
            self.con.execute("INSERT OR IGNORE INTO meta VALUES ('monitor', ?)", (token,))
            return str(self.con.execute("SELECT value FROM meta WHERE key='monitor'").fetchone()[0])

    def lab_tokens(self) -> list[tuple[int, str]]:
        """The slots no platform participant was given: the pre-made links for in-lab use."""
        with self.lock:
            return [
                (int(n), t)
                for n, t in self.con.execute(
                    "SELECT number, token FROM participants WHERE platform_pid IS NULL ORDER BY number"
                )
            ]

    def _participant(self, token: str) -> sqlite3.Row | tuple:
        row = self.con.execute(
            "SELECT number, consent, instructions_at, finished_at FROM participants WHERE token=?", (token,)
        ).fetchone()
        if row is None:
            raise Refused(404, "unknown link: check that you copied the whole address")
        return row

    def _next(self, token: str) -> tuple[int, int, dict | None]:
        """(answered, total, the first unanswered trial's spec or None)."""
        total, answered = self.con.execute(
            "SELECT COUNT(*), COUNT(answer) FROM trials WHERE token=?", (token,)
        ).fetchone()
        row = self.con.execute(
            "SELECT spec FROM trials WHERE token=? AND answer IS NULL ORDER BY position LIMIT 1", (token,)
        ).fetchone()
        return int(answered), int(total), (json.loads(row[0]) if row else None)

    def _quiz_pending(self, token: str) -> bool:
        """The study has a quiz (texts.py) and this participant has not passed it yet."""
        if not self.texts["quiz"]:
            return False
        row = self.con.execute("SELECT quiz_passed_at FROM participants WHERE token=?", (token,)).fetchone()
        return row is None or row[0] is None

    def _about_pending(self, token: str) -> bool:
        """The study asks optional questions or a comment at the end (texts.py) and they were not sent yet."""
        if not (self.texts["demographics"] or self.texts["pages"].get("comment")):
            return False
        row = self.con.execute("SELECT about_at FROM participants WHERE token=?", (token,)).fetchone()
        return row is None or row[0] is None

    def _started(self, token: str, consent, instructions_at) -> bool:
        """Consent given, instructions read and the quiz (if any) passed: the trials may begin."""
        return bool(consent) and instructions_at is not None and not self._quiz_pending(token)

    def _outcome(self, token: str) -> tuple[str | None, str | None, str | None]:
        """(outcome, reason, platform id) of a participant."""
        row = self.con.execute(
            "SELECT outcome, outcome_reason, platform_pid FROM participants WHERE token=?", (token,)
        ).fetchone()
        return (row[0], row[1], row[2]) if row else (None, None, None)

    def _live(self, token: str) -> None:
        """Refuse any step of a session that has ended early (screened out or returned)."""
        if self._outcome(token)[0] in ENDED:
            raise Refused(409, "this session has ended")

    def _end(self, con, token: str, outcome: str, reason: str | None) -> None:
        """Record the session's outcome, once (a later call changes nothing). In the caller's transaction."""
        con.execute(
            "UPDATE participants SET outcome=?, outcome_at=?, outcome_reason=? WHERE token=? AND outcome IS NULL",
            (outcome, self.clock(), reason, token),
        )

    def _touch(self, con, token: str) -> None:
        con.execute("UPDATE participants SET active_at=? WHERE token=?", (self.clock(), token))

    def _idle(self, active_at, outcome, consent) -> bool:
        """Past the platform's idle timeout since the last step, with the session still open."""
        limit = (self.platform or {}).get("idle_timeout_s") or 0
        return (
            bool(limit and active_at is not None and outcome is None and consent is not False)
            and self.clock() - float(active_at) > limit
        )

    def _expire(self, token: str) -> None:
        """Mark a participant idle past the timeout as returned ("timeout"). Called with the lock held."""
        if not self.platform:
            return
        row = self.con.execute(
            "SELECT active_at, outcome, consent, finished_at FROM participants WHERE token=?", (token,)
        ).fetchone()
        if (
            row is None
            or row[3] is not None
            or not self._idle(row[0], row[1], None if row[2] is None else bool(row[2]))
        ):
            return
        self.con.execute("BEGIN IMMEDIATE")
        try:
            self._end(self.con, token, "returned", "timeout")
            self.con.execute("COMMIT")
        finally:
            if self.con.in_transaction:
                self.con.execute("ROLLBACK")

    def _completion(self, outcome: str, pid: str | None) -> dict | None:
        """The code and redirect URL of `outcome` for a platform participant (None for an in-lab link)."""
        if not self.platform or pid is None:
            return None
        return {"outcome": outcome, **self.platform["completion"][outcome]}

    def _page_rules(self) -> dict | None:
        """What the page enforces of the platform configuration (platform.py)."""
        if not self.platform:
            return None
        return {k: self.platform[k] for k in ("min_window", "fullscreen", "idle_timeout_s")}

    def state(self, token: str, shown: bool = False) -> dict:
        """Where the participant is: consent, instructions, quiz, a trial (public fields only), done or declined.
        `shown`: the page will show this trial (GET state): count the showing (see the module's Timing). The
        researcher's texts (texts.py) come with the consent, instructions, quiz and end stages."""
        with self.lock:
            number, consent, instructions_at, _ = self._participant(token)
            self._expire(token)
            outcome, reason, pid = self._outcome(token)
            answered, total, spec = self._next(token)
            quiz = instructions_at is not None and self._quiz_pending(token)
            about = spec is None and bool(consent) and self._about_pending(token)
            if shown and consent and instructions_at is not None and not quiz and spec is not None and not outcome:
                self._mark_shown(token, spec["position"])
        out: dict = {"answered": answered, "total": total}
        rules = self._page_rules()
        if rules:
            out["rules"] = rules
        pages = self.texts["pages"]
        if outcome in ENDED:
            out.update(stage="ended", outcome=outcome, reason=reason, completion=self._completion(outcome, pid))
        elif consent is None:
            out.update(stage="consent", text=pages.get("consent"))
        elif not consent:
            out["stage"] = "declined"
        elif instructions_at is None or quiz:
            out.update(
                stage="quiz" if quiz else "instructions",
                protocol=self.meta["design"]["protocol"],
                response=self._response(),
                keys=self.keys(number),
                text=pages.get("instructions"),
            )
            if quiz:
                out["quiz"] = texts.public_quiz(self.texts["quiz"])
        elif spec is None and about:
            out.update(
                stage="about",
                demographics=texts.public_quiz(self.texts["demographics"] or []),
                comment=pages.get("comment"),
            )
        elif spec is None:
            out.update(stage="done", text=pages.get("end"), completion=self._completion("completed", pid))
        else:
            out.update(stage="trial", trial=public_trial(spec, self.keys(number)))
        return out

    def quiz(self, token: str, answers: list[int]) -> dict:
        """Check the comprehension quiz: {"passed": bool, "wrong": [question indexes]}; every attempt counted, the
        first pass recorded (then the trials begin)."""
        quiz = self.texts["quiz"]

        def go(con):
            _, consent, instructions_at, _ = self._participant(token)
            self._live(token)
            if not consent or instructions_at is None:
                raise Refused(409, "consent and read the instructions first")
            if not self._quiz_pending(token):
                raise Refused(409, "no quiz to answer" if not quiz else "the quiz was already passed")
            if len(answers) != len(quiz) or any(type(a) is not int or not 0 <= a < 100 for a in answers):
                raise Refused(400, f"answers must be {len(quiz)} choice numbers")
            wrong = texts.wrong_answers(quiz, answers)
            con.execute(
                "UPDATE participants SET quiz_attempts=COALESCE(quiz_attempts, 0) + 1, quiz_passed_at=? WHERE token=?",
                (None if wrong else self.clock(), token),
            )
            self._touch(con, token)
            limit = (self.platform or {}).get("max_quiz_attempts") or 0
            attempts = con.execute("SELECT quiz_attempts FROM participants WHERE token=?", (token,)).fetchone()[0]
            ended = bool(wrong and limit and attempts >= limit)
            if ended:
                self._end(con, token, "screened_out", f"failed the quiz {attempts} times")
            return {"passed": not wrong, "wrong": wrong, "ended": ended}

        return self._write(go)

    def keys(self, number: int) -> dict[str, str]:
        """Participant `number`'s answer keys: the study's, swapped for odd numbers (counterbalanced hands)."""
        keys = dict(self.meta.get("keys") or DEFAULT_KEYS)
        if number % 2 and {"yes", "no"} <= set(keys):
            keys["yes"], keys["no"] = keys["no"], keys["yes"]
        return keys

    def _mark_shown(self, token: str, position: int) -> None:
        """views += 1 and the first showing's time, in its own transaction with synchronous=NORMAL: written to the
        log before returning (so it survives a kill -9 of the server) but not fsynced (a power cut may lose it; the
        next answer's fsync covers it). Called with the lock held."""
        self.con.execute("PRAGMA synchronous=NORMAL")
        try:
            self.con.execute("BEGIN IMMEDIATE")
            self.con.execute(
                "UPDATE trials SET views=COALESCE(views, 0) + 1, first_shown_at=COALESCE(first_shown_at, ?) "
                "WHERE token=? AND position=?",
                (self.clock(), token, position),
            )
            self._touch(self.con, token)
            self.con.execute("COMMIT")
        finally:
            if self.con.in_transaction:
                self.con.execute("ROLLBACK")
            self.con.execute("PRAGMA synchronous=FULL")

    def _response(self) -> str:
        return str(self.meta["design"]["response"])

    def video_of(self, token: str, position: int) -> tuple[str, str]:
        """(where, path) of the video of trial `position`, for the participant who has reached it: ("set", the
        manifest path) or ("study", a path in the study folder: a catch video with a dot, catch.py)."""
        with self.lock:
            _, consent, instructions_at, _ = self._participant(token)
            if not self._started(token, consent, instructions_at) or self._outcome(token)[0] in ENDED:
                raise Refused(403, "consent and read the instructions first")
            row = self.con.execute("SELECT spec FROM trials WHERE token=? AND position=?", (token, position)).fetchone()
            _, _, spec = self._next(token)
        if row is None:
            raise Refused(404, "no such trial")
        trial = json.loads(row[0])
        current = spec["position"] if spec else None
        if current is not None and position > current:
            raise Refused(403, "this trial has not started yet")
        if not trial.get("video"):
            raise Refused(404, "this trial has no video")
        return ("study" if trial.get("video_root") == "study" else "set"), str(trial["video"])

    def answers(self) -> list[dict]:
        """Every trial of every participant with its answer (None where not answered), by participant, position."""
        with self.lock:
            rows = self.con.execute(
                "SELECT p.number, p.seed, p.consent, p.finished_at, p.quiz_attempts, p.demographics, p.comment, "
                "t.position, t.spec, t.answer, "
                "t.rt_ms, t.media, t.answered_at, t.rt_start_ms, t.response_key, t.views, t.first_shown_at, "
                "p.outcome, p.outcome_reason, p.platform_pid, p.platform_study, p.platform_session "
                "FROM trials t JOIN participants p ON p.token = t.token ORDER BY p.number, t.position"
            ).fetchall()
        out = []
        for row in rows:
            number, seed, consent, finished, quiz, demo, comment, position, spec, answer, rt, media, at = row[:13]
            rt0, key, views, shown, outcome, reason, pid, pstudy, psession = row[13:]
            out.append(
                {
                    "participant": int(number),
                    "participant_seed": int(seed),
                    "consent": None if consent is None else bool(consent),
                    "finished": finished is not None,
                    "quiz_attempts": quiz,
                    "demographics": json.loads(demo) if demo else None,
                    "comment": comment,
                    "position": int(position),
                    "trial": json.loads(spec),
                    "answer": json.loads(answer) if answer is not None else None,
                    "rt_ms": rt,
                    "media": json.loads(media) if media else None,
                    "answered_at": at,
                    "rt_start_ms": rt0,
                    "response_key": key,
                    "views": views,
                    "first_shown_at": shown,
                    "outcome": outcome,
                    "outcome_reason": reason,
                    "platform_pid": pid,
                    "platform_study": pstudy,
                    "platform_session": psession,
                }
            )
        return out

    # -- writes ---------------------------------------------------------------------------------------------------
    def _write(self, fn):
        """Run `fn(con)` in one IMMEDIATE transaction under the lock; COMMIT (fsynced) before returning."""
        with self.lock:
            self.con.execute("BEGIN IMMEDIATE")
            try:
                out = fn(self.con)
            except BaseException:
                self.con.execute("ROLLBACK")
                raise
            self.con.execute("COMMIT")
            return out

    def consent(self, token: str, agree: bool) -> None:
        def go(con):
            _, consent, _, _ = self._participant(token)
            self._live(token)
            if consent is not None:
                raise Refused(409, "consent was already given or declined")
            con.execute(
                "UPDATE participants SET consent=?, consent_at=? WHERE token=?", (int(agree), self.clock(), token)
            )
            self._touch(con, token)
            if not agree and self.platform:
                self._end(con, token, "returned", "declined consent")

        self._write(go)

    def instructions(self, token: str) -> None:
        def go(con):
            _, consent, instructions_at, _ = self._participant(token)
            if not consent:
                raise Refused(409, "consent first")
            if instructions_at is not None:
                raise Refused(409, "the instructions were already read")
            self._live(token)
            con.execute("UPDATE participants SET instructions_at=? WHERE token=?", (self.clock(), token))
            self._touch(con, token)

        self._write(go)

    def about(self, token: str, demographics: list | None, comment: str | None) -> None:
        """Store the optional end questions (a choice index or None = skipped, per question) and the comment (None
        or text of at most MAX_COMMENT characters, stored as given: escaping is the reader's job, and the page and
        the export do it), once, after the last trial."""
        questions = self.texts["demographics"] or []
        if demographics is not None and (
            len(demographics) != len(questions)
            or any(
                a is not None and (type(a) is not int or not 0 <= a < len(q["choices"]))
                for a, q in zip(demographics, questions)
            )
        ):
            raise Refused(400, f"demographics must be {len(questions)} choice numbers or null")
        if comment is not None:
            if not self.texts["pages"].get("comment"):
                raise Refused(400, "this study asks for no comment")
            if len(comment) > MAX_COMMENT or any(ord(c) < 32 and c not in "\n\t" for c in comment):
                raise Refused(400, f"comment must be text of at most {MAX_COMMENT} characters")

        def go(con):
            _, consent, instructions_at, _ = self._participant(token)
            self._live(token)
            if not self._started(token, consent, instructions_at) or self._next(token)[2] is not None:
                raise Refused(409, "these questions come after the last trial")
            if not self._about_pending(token):
                raise Refused(
                    409,
                    "already sent"
                    if self.texts["demographics"] or self.texts["pages"].get("comment")
                    else "no questions to answer",
                )
            chosen = None
            if demographics is not None:
                chosen = {
                    q["question"]: (q["choices"][a] if a is not None else None) for a, q in zip(demographics, questions)
                }
            con.execute(
                "UPDATE participants SET about_at=?, demographics=?, comment=? WHERE token=?",
                (
                    self.clock(),
                    json.dumps(chosen) if chosen else None,
                    comment.strip() if comment and comment.strip() else None,
                    token,
                ),
            )
            self._touch(con, token)
            self._end(con, token, "completed", None)

        self._write(go)

    def answer(
        self,
        token: str,
        position: int,
        value,
        rt_ms: int | None,
        media: dict | None,
        rt_start_ms: int | None = None,
        key: str | None = None,
    ) -> dict:
        """Store the answer to trial `position`, which must be the participant's next one (a replayed or
        out-of-order answer is refused). `rt_ms`: from the video's end (the answer unlocking); `rt_start_ms`: from
        its first frame; `key`: the key pressed (None: clicked), which must be the key of that answer. Returns
        feedback for practice trials, and whether the session is done. An answer sent before the trial's video can
        have played through since it was first shown is refused (425, with the time left; viewing.py): nothing is
        stored, except the start of the clock of a trial never recorded as shown."""

        def go(con):
            number, consent, instructions_at, _ = self._participant(token)
            self._live(token)
            if not self._started(token, consent, instructions_at):
                raise Refused(409, "consent and read the instructions first")
            _, _, spec = self._next(token)
            if spec is None:
                raise Refused(409, "the session is finished; every answer is saved")
            if position != spec["position"]:
                if position < spec["position"]:
                    raise Refused(409, f"trial {position} was already answered (a replayed answer)")
                raise Refused(409, f"trial {position} is not the current trial ({spec['position']})")
            check_answer(spec, value)
            check_key(spec, value, key, self.keys(number))
            now = self.clock()
            early = self._too_early(con, token, spec, now)
            if early:
                return {"early": early}
            cur = con.execute(
                "UPDATE trials SET answer=?, rt_ms=?, media=?, answered_at=?, rt_start_ms=?, response_key=? "
                "WHERE token=? AND position=? AND answer IS NULL",
                (
                    json.dumps(value),
                    rt_ms,
                    json.dumps(media) if media else None,
                    now,
                    rt_start_ms,
                    key,
                    token,
                    position,
                ),
            )
            if cur.rowcount != 1:  # cannot happen under the lock; never acknowledge what was not written
                raise Refused(409, "the answer was not stored; reload the page")
            self._touch(con, token)
            answered, total, nxt = self._next(token)
            out: dict = {"saved": True, "answered": answered, "total": total}
            if spec["phase"] == "attention" and self._screen(con, token):
                out["ended"] = True
            elif nxt is None:
                con.execute("UPDATE participants SET finished_at=? WHERE token=?", (now, token))
                if not self._about_pending(token):
                    self._end(con, token, "completed", None)
            if spec["phase"] == "practice" and spec["response"] == "yesno":
                out["feedback"] = {"truth": spec["truth"], "correct": value == spec["truth"]}
            return out

        out = self._write(go)
        if "early" in out:
            raise Refused(425, *out["early"])
        return out

    def _too_early(self, con, token: str, spec: dict, now: float) -> tuple[str, int] | None:
        """(message, milliseconds left) where an answer to `spec` now comes before its video can have played
        through since the trial was first shown (viewing.py), else None. A trial never recorded as shown starts its
        clock now (in the caller's transaction, which commits: the refusal stores nothing else)."""
        if self.meta["design"].get("min_viewing", "video") == "off":
            return None
        duration = viewing.trial_ms(spec, self.fallback_ms)
        if duration is None:
            return None
        row = con.execute(
            "SELECT first_shown_at FROM trials WHERE token=? AND position=?", (token, spec["position"])
        ).fetchone()
        shown = row[0] if row else None
        wait = viewing.wait_ms(duration, shown, now)
        if not wait:
            return None
        if shown is None:
            con.execute(
                "UPDATE trials SET first_shown_at=? WHERE token=? AND position=? AND first_shown_at IS NULL",
                (now, token, spec["position"]),
            )
        return (
            f"too early: the video of this trial lasts {duration / 1000:.1f} s; the answer is accepted "
            f"{wait / 1000:.1f} s from now (send it again then)",
            wait,
        )

    def _screen(self, con, token: str) -> bool:
        """After an attention or catch check: end the session as screened out once more checks were failed than the
        platform allows (platform.py max_failed_checks). In the caller's transaction."""
        if not self.platform:
            return False
        from voebench.evaluate.humans.export import parse  # export imports this module

        failed = sum(
            1
            for spec, value in con.execute(
                "SELECT spec, answer FROM trials WHERE token=? AND answer IS NOT NULL", (token,)
            )
            if (t := json.loads(spec))["phase"] == "attention" and not parse(t, json.loads(value))[2]
        )
        if failed <= self.platform["max_failed_checks"]:
            return False
        self._end(con, token, "screened_out", f"failed {failed} attention check{'s' if failed != 1 else ''}")
        return True

    # -- the recruiting platform (platform.py) ------------------------------------------------------------------
    def assign(self, pid: str, study: str, session: str) -> tuple[str, str | None]:
        """Give platform participant `pid` a slot: ("slot", token) for a new participant or the same session
        coming back, ("refused", None) for another session of an id that has a slot, ("full", None) when no slot
        is free. Refusals are recorded. One IMMEDIATE transaction: atomic and, once returned, on disk."""

        def go(con):
            now = self.clock()
            row = con.execute(
                "SELECT token, platform_session FROM participants WHERE platform_pid=?", (pid,)
            ).fetchone()
            if row is not None:
                if row[1] == session:
                    return "slot", str(row[0])
                con.execute("INSERT INTO platform_refusals VALUES (?, ?, ?, ?)", (now, pid, session, "second session"))
                return "refused", None
            row = con.execute(
                "SELECT p.token FROM participants p WHERE p.platform_pid IS NULL AND p.consent IS NULL "
                "AND p.instructions_at IS NULL AND p.outcome IS NULL AND p.active_at IS NULL "
                "AND NOT EXISTS (SELECT 1 FROM trials t WHERE t.token = p.token "
                "AND (t.views > 0 OR t.answer IS NOT NULL)) "
                "ORDER BY p.number LIMIT 1"
            ).fetchone()
            if row is None:
                con.execute("INSERT INTO platform_refusals VALUES (?, ?, ?, ?)", (now, pid, session, "study full"))
                return "full", None
            con.execute(
                "UPDATE participants SET platform_pid=?, platform_study=?, platform_session=?, assigned_at=?, "
                "active_at=? WHERE token=?",
                (pid, study, session, now, now, str(row[0])),
            )
            return "slot", str(row[0])

        return self._write(go)

    def withdraw(self, token: str) -> None:
        """The participant stops and returns the study (platform outcome "returned", reason "withdrew")."""

        def go(con):
            self._participant(token)
            self._live(token)
            if not self.platform:
                raise Refused(409, "this study has no platform to return to: just close the page")
            if self._outcome(token)[0] is not None:
                raise Refused(409, "the session is finished; every answer is saved")
            self._end(con, token, "returned", "withdrew")

        self._write(go)

    def people(self) -> list[dict]:
        """One row per slot for the monitor (monitor.py): progress and outcome, no answers, no platform ids."""
        with self.lock:
            rows = self.con.execute(
                "SELECT p.number, p.consent, p.instructions_at, p.finished_at, p.quiz_attempts, "
                "p.platform_pid IS NOT NULL, p.active_at, p.outcome, p.outcome_reason, "
                "(SELECT COUNT(answer) FROM trials t WHERE t.token = p.token), "
                "(SELECT COUNT(*) FROM trials t WHERE t.token = p.token) FROM participants p ORDER BY p.number"
            ).fetchall()
        return [
            {
                "participant": int(r[0]),
                "consent": None if r[1] is None else bool(r[1]),
                "instructions": r[2] is not None,
                "finished": r[3] is not None,
                "quiz_attempts": r[4],
                "platform": bool(r[5]),
                "active_at": r[6],
                "idle": self._idle(r[6], r[7], None if r[1] is None else bool(r[1])) and r[3] is None,
                "outcome": r[7],
                "outcome_reason": r[8],
                "answered": int(r[9]),
                "trials": int(r[10]),
            }
            for r in rows
        ]

    def refusals(self) -> list[dict]:
        with self.lock:
            rows = self.con.execute(
                "SELECT at, platform_pid, platform_session, reason FROM platform_refusals ORDER BY at"
            ).fetchall()
        return [{"at": r[0], "platform_pid": r[1], "platform_session": r[2], "reason": r[3]} for r in rows]


def check_answer(spec: dict, value) -> None:
    """Refuse an answer that does not fit the trial's response kind."""
    kind = spec["response"]
    if kind == "yesno" and value not in ("yes", "no"):
        raise Refused(400, 'answer must be "yes" or "no"')
    if kind == "slider" and (isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= SLIDER_MAX):
        raise Refused(400, f"answer must be an integer rating 0..{SLIDER_MAX}")
    if kind == "watch" and value != "continue":
        raise Refused(400, 'answer must be "continue"')


def check_key(spec: dict, value, key: str | None, keys: dict[str, str]) -> None:
    """A key-given answer must be the one that key stands for: this participant's yes/no key, or Enter."""
    if key is None:
        return
    want = keys.get(value) if spec["response"] == "yesno" else SUBMIT_KEY
    if key != want:
        raise Refused(400, f"key {key!r} does not give this answer (expected {want!r})")


def public_trial(spec: dict, keys: dict[str, str] | None = None) -> dict:
    """What the browser may know of a trial: no video id or path (the file name tells the condition), no truth,
    not whether it is an attention check or a repeat (the question says what an attention check wants). With it:
    the video's width and height where the set gives them (the page sizes its box to that aspect ratio) and the
    answer keys."""
    out = {
        "position": spec["position"],
        "practice": spec["phase"] == "practice",
        "response": spec["response"],
        "question": spec["question"],
        "video": bool(spec.get("video")),
        "keys": dict(keys or DEFAULT_KEYS) if spec["response"] == "yesno" else {"submit": SUBMIT_KEY},
    }
    entry = spec.get("entry") or {}
    if spec.get("video") and isinstance(entry.get("width"), int) and isinstance(entry.get("height"), int):
        out["size"] = [entry["width"], entry["height"]]
    if spec["response"] == "slider":
        out["labels"] = list(SLIDER_LABELS)
        out["max"] = SLIDER_MAX
    return out
