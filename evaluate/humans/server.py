"""The study's web server: Starlette (a small, well-kept ASGI toolkit whose FileResponse answers HTTP range
requests, which browsers need to play and seek mp4s) under uvicorn.

Routes (TOKEN = the participant's link; every API call acts on that participant only):

    GET  /start?PROLIFIC_PID=..&STUDY_ID=..&SESSION_ID=..
                                       the recruiting platform's study URL (platform.py; parameter names from
                                       STUDY/platform.json): assigns a slot and redirects (303) to its /p/TOKEN; a
                                       second session of a participant id, a full study or a bad id: one HTML page
    GET  /p/TOKEN                      the participant's page (static HTML + app.js; the state comes from the API)
    GET  /api/TOKEN/state              where the participant is (consent, instructions, the current trial, done)
    POST /api/TOKEN/consent            {"consent": true|false}
    POST /api/TOKEN/instructions       {}
    POST /api/TOKEN/quiz               {"answers": [choice, ...]}: the comprehension quiz, where the study has one
    POST /api/TOKEN/about              {"demographics": [choice|null, ...]|null, "comment": text|null}: after the
                                       last trial, where the study asks (texts.py)
    POST /api/TOKEN/answer             {"position": n, "answer": "yes"|"no"|0..100|"continue", "rt_ms": n,
                                        "rt_start_ms": n, "key": "f"|"j"|"Enter"|null,
                                        "media": {"played": bool, "error": bool, "replays": n}}
    POST /api/TOKEN/withdraw           {}: stop and return the study (platform outcome "returned")
    GET  /api/TOKEN/video/POSITION     the video of a trial the participant has reached (range requests)
    GET  /monitor/MONITOR_TOKEN[/data] the researcher's live monitor (monitor.py), HTML or JSON, read-only
    GET  /static/...                   app.js, style.css

Refusals are JSON `{"error": "..."}` with a status that says why: 404 unknown token or trial, 403 a trial not yet
reached, 409 a replayed or out-of-order answer, 400 a malformed body, 413 a body over MAX_BODY bytes, 415 not
JSON, 425 an answer sent before the trial's video can have played through (the minimum-viewing rule, viewing.py:
nothing stored; `retry_after_ms` in the body and `Retry-After` say when the same answer is accepted). A video is
found through the study's own record of the trial (never a path from the request) and must resolve inside the
rendered set, so no request reads a file outside it.
"""

from __future__ import annotations

import html
import json
import math
import os
import re
import secrets

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import (
    FileResponse,
    HTMLResponse,
    JSONResponse,
    PlainTextResponse,
    RedirectResponse,
    Response,
)
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from voebench.evaluate.humans import monitor, platform
from voebench.evaluate.humans.store import TOKEN_CHARS, Refused, Study

STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")
#: The largest request body accepted: an answer is under 200 bytes. The end questions' body (a comment of up to
#: 1000 characters, 4 bytes each at most in UTF-8, JSON-escaped) may take ABOUT_BODY.
MAX_BODY = 2048
ABOUT_BODY = 8192
_TOKEN = re.compile(rf"^[A-Za-z0-9_-]{{{TOKEN_CHARS}}}$")

HEADERS = {
    # the token is in the address: never send it on to another site
    "referrer-policy": "no-referrer",
    "x-content-type-options": "nosniff",
    "x-frame-options": "DENY",
    "content-security-policy": "default-src 'self'; media-src 'self'; img-src 'self'; object-src 'none'; "
    "base-uri 'none'; frame-ancestors 'none'; form-action 'none'",
}


class SecurityHeaders:
    """ASGI middleware: the headers above on every response; no caching of pages and API answers."""

    def __init__(self, app):
        self.app = app

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.app(scope, receive, send)

        async def send_with_headers(message):
            if message["type"] == "http.response.start":
                headers = list(message.get("headers", []))
                names = {k.lower() for k, _ in headers}
                for k, v in HEADERS.items():
                    if k.encode() not in names:
                        headers.append((k.encode(), v.encode()))
                if b"cache-control" not in names:
                    headers.append((b"cache-control", b"no-store"))
                message = {**message, "headers": headers}
            await send(message)

        await self.app(scope, receive, send_with_headers)


def _token(request: Request) -> str:
    token = request.path_params["token"]
    if not _TOKEN.match(token):
        raise Refused(404, "unknown link: check that you copied the whole address")
    return token


async def read_json(request: Request, keys: dict[str, tuple], limit: int = MAX_BODY) -> dict:
    """The request's JSON object, refused unless it is small (`limit` bytes), well-formed and has only `keys`
    (name -> allowed types; a key whose types include type(None) may be missing)."""
    ctype = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if ctype != "application/json":
        raise Refused(415, "send the body as application/json")
    length = request.headers.get("content-length")
    if length is not None:
        if not length.isdigit():
            raise Refused(400, "malformed Content-Length")
        if int(length) > limit:
            raise Refused(413, f"request body over {limit} bytes")
    body = bytearray()
    async for chunk in request.stream():
        body += chunk
        if len(body) > limit:
            raise Refused(413, f"request body over {limit} bytes")
    try:
        data = json.loads(body.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise Refused(400, "malformed JSON") from None
    if not isinstance(data, dict):
        raise Refused(400, "the body must be a JSON object")
    unknown = sorted(set(data) - set(keys))
    if unknown:
        raise Refused(400, f"unknown field(s): {', '.join(unknown)}")
    for k, types in keys.items():
        if k not in data and type(None) not in types:
            raise Refused(400, f"missing field: {k}")
        v = data.get(k)
        if isinstance(v, bool) and bool not in types or not isinstance(v, types):
            raise Refused(400, f"field {k} has the wrong type")
    return data


def _no_constant(name: str):
    raise ValueError(f"{name} is not JSON")


#: The largest trial position a request may name (a study has a few hundred trials per participant at most).
MAX_POSITION = 100_000
#: The largest video size (CSS pixels) a page may report.
MAX_PX = 20_000
#: The most replays of one video a page may report.
MAX_REPLAYS = 1000
_POSITION = re.compile(r"^[0-9]{1,6}$")


def _position(value) -> int:
    """A trial position from the body (an int, never a bool or float) or the path (digits only), 0..MAX_POSITION;
    anything else is a 400, before the store is asked (SQLite refuses integers over 2**63 with an exception)."""
    if isinstance(value, str):
        value = int(value) if _POSITION.match(value) else None
    if type(value) is not int or not 0 <= value <= MAX_POSITION:
        raise Refused(400, f"position must be an integer 0..{MAX_POSITION}")
    return value


#: The longest time a page may report (a day): longer is a broken clock, not a response.
MAX_MS = 24 * 3600 * 1000
_KEY = re.compile(r"^[A-Za-z]{1,16}$")


def _ms(data: dict, name: str) -> int | None:
    """A duration in whole milliseconds, 0..MAX_MS, or None (type checked by read_json)."""
    value = data.get(name)
    if value is not None and not 0 <= value <= MAX_MS:
        raise Refused(400, f"{name} out of range")
    return value


def _media(value) -> dict | None:
    """{played: bool, error: bool, replays: 0..MAX_REPLAYS, focus_lost: 0..MAX_REPLAYS, fullscreen: bool,
    video_px: [w, h]}, each optional; exact types (JSON true is no count). focus_lost: how often the page lost the
    focus or was hidden during the trial; fullscreen: whether the page was full screen when the answer was given;
    video_px: the size the video was shown at, in CSS pixels."""
    if value is None:
        return None
    allowed = {"played": bool, "error": bool, "replays": int, "focus_lost": int, "fullscreen": bool, "video_px": list}
    if set(value) - set(allowed) or any(type(value[k]) is not t for k, t in allowed.items() if k in value):
        raise Refused(
            400,
            "field media must be {played: bool, error: bool, replays: int, focus_lost: int, fullscreen: bool, "
            "video_px: [int, int]}",
        )
    px = value.get("video_px", [0, 0])
    if len(px) != 2 or any(type(v) is not int or not 0 <= v <= MAX_PX for v in px):
        raise Refused(400, f"media.video_px must be [width, height], integers 0..{MAX_PX}")
    for name in ("replays", "focus_lost"):
        if not 0 <= value.get(name, 0) <= MAX_REPLAYS:
            raise Refused(400, f"media.{name} must lie in 0..{MAX_REPLAYS}")
    return {k: value[k] for k in allowed if k in value}


def create_app(study: Study, set_root: str) -> Starlette:
    roots = {"set": os.path.realpath(set_root), "study": os.path.realpath(study.dir)}
    monitor_token = study.monitor_token()

    async def start(request: Request) -> Response:
        """The platform's study URL: ids checked (platform.ids), a slot assigned (store.Study.assign)."""
        config = study.platform
        if config is None:
            raise Refused(404, "this study has no recruiting-platform link: open the personal link you were given")
        if any(len(request.query_params.getlist(k)) > 1 for k in request.query_params):
            raise Refused(400, "the link repeats a parameter; open the study from the recruiting platform again")
        try:
            pid, study_id, session = platform.ids(config, request.query_params)
        except ValueError as e:
            raise Refused(400, str(e)) from None
        what, token = await run_in_threadpool(study.assign, pid, study_id, session)
        if what == "refused":
            return HTMLResponse(
                message_page(
                    "You have already taken part",
                    "This study can be done once per participant, and your participant id has already started it "
                    "in another session. Please return the study on the recruiting platform.",
                ),
                status_code=409,
            )
        if what == "full":
            return HTMLResponse(
                message_page(
                    "The study is full", "Every place in this study is taken. Please return it on the platform."
                ),
                status_code=503,
            )
        return RedirectResponse(f"/p/{token}", status_code=303)

    async def withdraw(request: Request) -> Response:
        token = _token(request)
        await read_json(request, {})
        await run_in_threadpool(study.withdraw, token)
        return JSONResponse(await run_in_threadpool(study.state, token))

    def _monitor_token(request: Request) -> None:
        if not secrets.compare_digest(request.path_params["mtoken"].encode(), monitor_token.encode()):
            raise Refused(404, "unknown link")

    async def monitor_page(request: Request) -> Response:
        _monitor_token(request)
        snap = await run_in_threadpool(monitor.snapshot, study)
        return HTMLResponse(monitor.page(snap))

    async def monitor_data(request: Request) -> Response:
        _monitor_token(request)
        return JSONResponse(await run_in_threadpool(monitor.snapshot, study, request.query_params.get("report") != "0"))

    async def home(request: Request) -> Response:
        return PlainTextResponse("voebench human study: open the personal link you were given.\n")

    async def page(request: Request) -> Response:
        token = _token(request)
        await run_in_threadpool(study.state, token)  # unknown token: 404 before any page is shown
        return FileResponse(os.path.join(STATIC, "index.html"), media_type="text/html")

    async def state(request: Request) -> Response:
        # the page asks for the state only to show it: a trial returned here counts as shown (store.Study.state)
        return JSONResponse(await run_in_threadpool(study.state, _token(request), True))

    async def consent(request: Request) -> Response:
        token = _token(request)
        data = await read_json(request, {"consent": (bool,)})
        await run_in_threadpool(study.consent, token, data["consent"])
        return JSONResponse(await run_in_threadpool(study.state, token))

    async def instructions(request: Request) -> Response:
        token = _token(request)
        await read_json(request, {})
        await run_in_threadpool(study.instructions, token)
        return JSONResponse(await run_in_threadpool(study.state, token))

    async def quiz(request: Request) -> Response:
        token = _token(request)
        data = await read_json(request, {"answers": (list,)})
        result = await run_in_threadpool(study.quiz, token, data["answers"])
        return JSONResponse({**result, **await run_in_threadpool(study.state, token)})

    async def about(request: Request) -> Response:
        token = _token(request)
        data = await read_json(
            request, {"demographics": (list, type(None)), "comment": (str, type(None))}, limit=ABOUT_BODY
        )
        await run_in_threadpool(study.about, token, data.get("demographics"), data.get("comment"))
        return JSONResponse(await run_in_threadpool(study.state, token))

    async def answer(request: Request) -> Response:
        token = _token(request)
        data = await read_json(
            request,
            {
                "position": (int,),
                "answer": (str, int),
                "rt_ms": (int, type(None)),
                "rt_start_ms": (int, type(None)),
                "key": (str, type(None)),
                "media": (dict, type(None)),
            },
        )
        position = _position(data["position"])
        rt, rt0 = _ms(data, "rt_ms"), _ms(data, "rt_start_ms")
        key = data.get("key")
        if key is not None and not _KEY.match(key):
            raise Refused(400, "key must be a key name of 1..16 letters")
        media = _media(data.get("media"))
        ack = await run_in_threadpool(study.answer, token, position, data["answer"], rt, media, rt0, key)
        return JSONResponse(ack)

    async def video(request: Request) -> Response:
        token = _token(request)
        where, rel = await run_in_threadpool(study.video_of, token, _position(request.path_params["position"]))
        root = roots[where]
        path = os.path.realpath(os.path.join(root, rel))
        if os.path.commonpath([path, root]) != root or not os.path.isfile(path):
            raise Refused(404, "video not found")
        return FileResponse(path, media_type="video/mp4", headers={"cache-control": "private, max-age=0"})

    async def refused(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, Refused)
        if request.url.path.startswith(("/p/", "/start", "/monitor/")) and not request.url.path.endswith("/data"):
            return HTMLResponse(error_page(exc.message), status_code=exc.status)
        if exc.retry_after_ms is not None:  # the same request is accepted then (an answer too early: viewing.py)
            return JSONResponse(
                {"error": exc.message, "retry_after_ms": exc.retry_after_ms},
                status_code=exc.status,
                headers={"retry-after": str(math.ceil(exc.retry_after_ms / 1000))},
            )
        return JSONResponse({"error": exc.message}, status_code=exc.status)

    routes = [
        Route("/", home),
        Route("/start", start),
        Route("/p/{token}", page),
        Route("/monitor/{mtoken}", monitor_page),
        Route("/monitor/{mtoken}/data", monitor_data),
        Route("/api/{token}/state", state),
        Route("/api/{token}/consent", consent, methods=["POST"]),
        Route("/api/{token}/instructions", instructions, methods=["POST"]),
        Route("/api/{token}/quiz", quiz, methods=["POST"]),
        Route("/api/{token}/about", about, methods=["POST"]),
        Route("/api/{token}/answer", answer, methods=["POST"]),
        Route("/api/{token}/withdraw", withdraw, methods=["POST"]),
        Route("/api/{token}/video/{position}", video, methods=["GET", "HEAD"]),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={Refused: refused})
    app.add_middleware(SecurityHeaders)
    return app


def error_page(message: str) -> str:
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Video study</title>'
        '<link rel="stylesheet" href="/static/style.css"></head><body><main id="app" class="error">'
        f"<h1>This link does not work</h1><p>{html.escape(message)}</p></main></body></html>"
    )


def message_page(title: str, message: str) -> str:
    """A plain page with a heading and one paragraph (both escaped)."""
    return (
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Video study</title>'
        '<link rel="stylesheet" href="/static/style.css"></head><body><main id="app" class="error" data-page="message">'
        f"<h1>{html.escape(title)}</h1><p>{html.escape(message)}</p></main></body></html>"
    )


def serve(study: Study, set_root: str, host: str, port: int) -> None:
    """Serve until interrupted. No access log: it would write tokens and addresses to the terminal."""
    import uvicorn

    uvicorn.run(
        create_app(study, set_root), host=host, port=port, access_log=False, log_level="warning", server_header=False
    )
