"""The recruiting-platform flow (Prolific-style, issue 25): STUDY/platform.json, read when the study is opened.

    {
      "params": {"participant": "PROLIFIC_PID", "study": "STUDY_ID", "session": "SESSION_ID"},
      "study_id": "6650f0c2a1b2c3d4e5f60718",          optional: refuse links that carry another study id
      "completion": {
        "completed":    {"code": "C1A2B3C4", "url": "https://app.prolific.com/submissions/complete?cc=C1A2B3C4"},
        "screened_out": {"code": "SCR00001", "url": "https://app.prolific.com/submissions/complete?cc=SCR00001"},
        "returned":     {"code": "RET00001", "url": "https://app.prolific.com/submissions/complete?cc=RET00001"}
      },
      "max_quiz_attempts": 3,        screened out after this many failed comprehension-quiz attempts (0: never)
      "max_failed_checks": 1,        screened out once more attention/catch checks than this were failed
      "idle_timeout_s": 900,         a participant idle this long is marked "timeout" and returned (0: never)
      "min_window": [800, 600],      the page asks for a window at least this large (CSS pixels) before the trials
      "fullscreen": true             the Start button asks the browser for full screen
    }

Every key but "completion" may be left out (the defaults above; "params" defaults to Prolific's names). The study
URL is `/start?PROLIFIC_PID=...&STUDY_ID=...&SESSION_ID=...`: the server assigns the next free design slot (store.py,
`assign`) and sends the browser on to that slot's page. Ids are 1..MAX_ID characters of letters, digits, `_` and
`-` (Prolific's are 24 hex digits); anything else is refused before the store is asked. A code is 1..32 letters,
digits, `_` or `-`; a URL must be https (or http to a loopback address, for testing). A bad file is refused in one
line naming the problem.

Outcomes: "completed" (every trial and the end questions done), "screened_out" (quiz, attention or catch checks
failed past the limits), "returned" (withdrew, declined consent, or idle past the timeout: reason "timeout"). Each
ends the session with its code and redirect URL on the page.
"""

from __future__ import annotations

import json
import os
import re
from urllib.parse import urlsplit

from voebench.errors import UsageError

NAME = "platform.json"
#: Prolific's query parameter names.
DEFAULT_PARAMS = {"participant": "PROLIFIC_PID", "study": "STUDY_ID", "session": "SESSION_ID"}
OUTCOMES = ("completed", "screened_out", "returned")
DEFAULTS = {
    "study_id": None,
    "max_quiz_attempts": 3,
    "max_failed_checks": 1,
    "idle_timeout_s": 900,
    "min_window": [800, 600],
    "fullscreen": True,
}
#: The longest platform id accepted.
MAX_ID = 64
ID = re.compile(rf"^[A-Za-z0-9_-]{{1,{MAX_ID}}}$")
CODE = re.compile(r"^[A-Za-z0-9_-]{1,32}$")
PARAM = re.compile(r"^[A-Za-z][A-Za-z0-9_]{0,31}$")
MAX_BYTES = 16 * 1024


def path(study_dir: str) -> str:
    return os.path.join(study_dir, NAME)


def load(study_dir: str) -> dict | None:
    """The checked configuration with defaults filled in, or None where the study has no platform.json."""
    p = path(study_dir)
    if not os.path.exists(p):
        return None
    try:
        with open(p, "rb") as fh:
            raw = fh.read(MAX_BYTES + 1)
        if len(raw) > MAX_BYTES:
            raise UsageError(f"{p}: over {MAX_BYTES} bytes")
        data = json.loads(raw.decode("utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as e:
        raise UsageError(f"{p}: not readable JSON ({e})") from None
    return check(p, data)


def check(where: str, data) -> dict:
    """Validate a platform configuration (see the module); one UsageError naming the first problem."""

    def bad(msg: str):
        return UsageError(f"{where}: {msg}")

    if not isinstance(data, dict):
        raise bad("must be a JSON object")
    unknown = sorted(set(data) - {"params", "completion", *DEFAULTS})
    if unknown:
        raise bad(f"unknown key(s): {', '.join(unknown)}")
    out = {**DEFAULTS, **{k: v for k, v in data.items() if k in DEFAULTS}}
    params = data.get("params", {})
    if not isinstance(params, dict) or set(params) - set(DEFAULT_PARAMS):
        raise bad(f"params must be an object with keys among {', '.join(DEFAULT_PARAMS)}")
    out["params"] = {**DEFAULT_PARAMS, **params}
    for k, v in out["params"].items():
        if not isinstance(v, str) or not PARAM.match(v):
            raise bad(f"params.{k} must be a query parameter name (letters, digits, _; up to 32)")
    if len(set(out["params"].values())) != 3:
        raise bad("params must name three different query parameters")
    completion = data.get("completion")
    if not isinstance(completion, dict) or set(completion) != set(OUTCOMES):
        raise bad(f"completion must be an object with exactly the keys {', '.join(OUTCOMES)}")
    out["completion"] = {}
    for outcome in OUTCOMES:
        c = completion[outcome]
        if not isinstance(c, dict) or set(c) != {"code", "url"}:
            raise bad(f"completion.{outcome} must be {{code, url}}")
        if not isinstance(c["code"], str) or not CODE.match(c["code"]):
            raise bad(f"completion.{outcome}.code must be 1..32 letters, digits, _ or -")
        if not isinstance(c["url"], str) or not safe_url(c["url"]):
            raise bad(f"completion.{outcome}.url must be an https URL (http only to localhost)")
        out["completion"][outcome] = {"code": c["code"], "url": c["url"]}
    if out["study_id"] is not None and (not isinstance(out["study_id"], str) or not ID.match(out["study_id"])):
        raise bad(f"study_id must be 1..{MAX_ID} letters, digits, _ or -")
    for k, hi in (("max_quiz_attempts", 100), ("max_failed_checks", 100), ("idle_timeout_s", 7 * 24 * 3600)):
        if type(out[k]) is not int or not 0 <= out[k] <= hi:
            raise bad(f"{k} must be an integer 0..{hi}")
    w = out["min_window"]
    if not isinstance(w, list) or len(w) != 2 or any(type(v) is not int or not 0 <= v <= 10_000 for v in w):
        raise bad("min_window must be [width, height], integers 0..10000")
    if type(out["fullscreen"]) is not bool:
        raise bad("fullscreen must be true or false")
    return out


def safe_url(url: str) -> bool:
    """An absolute https URL (http only to localhost/127.0.0.1, for testing) without quotes, spaces or control
    characters: the page navigates there, so never a javascript: or data: URL."""
    if len(url) > 2000 or any(c in url for c in "\"'<>` \\") or any(ord(c) < 33 or ord(c) > 126 for c in url):
        return False
    try:
        parts = urlsplit(url)
    except ValueError:
        return False
    if parts.scheme == "https":
        return bool(parts.hostname)
    return parts.scheme == "http" and parts.hostname in ("localhost", "127.0.0.1")


def ids(config: dict, query) -> tuple[str, str, str]:
    """(participant, study, session) ids from a request's query parameters (a mapping), each checked; a missing or
    malformed one is refused (ValueError, with a message for the page)."""
    out = []
    for role in ("participant", "study", "session"):
        name = config["params"][role]
        value = query.get(name)
        if value is None or value == "":
            raise ValueError(f"the link lacks the {role} id ({name}); open the study from the recruiting platform")
        if not ID.match(value):
            raise ValueError(f"the {role} id ({name}) is not valid: 1..{MAX_ID} letters, digits, _ or -")
        out.append(value)
    if config["study_id"] is not None and out[1] != config["study_id"]:
        raise ValueError("this link belongs to another study")
    return out[0], out[1], out[2]
