"""The minimum-viewing rule, enforced by the server (issue 25): no answer to a trial with a video before the video
can have played through.

The page unlocks the answer only at the video's `ended` event (static/app.js), but a page is the participant's
own: a script, the console or an edited page could post answers at once. So the server keeps its own clock. It
records when it first sent a trial to be shown (`first_shown_at`, store.py: the first `GET state` that returns the
trial) and refuses an answer that arrives sooner after that than the trial's video lasts, less TOLERANCE_MS:

    refused  if  now - first_shown_at < duration - TOLERANCE_MS

with a 425 ("Too Early") and the wait left (`retry_after_ms`, and `Retry-After` in seconds); nothing is stored.
An honest page cannot be early: between the server sending the trial and receiving the answer lie the network
both ways, the video's loading and the whole video, so the server's span is longer than the video. The tolerance
covers what could make it look shorter: a container whose duration is up to a frame shorter than n_frames / fps
(the last frame's display time; 125 ms at 8 fps, 40 ms at 25 fps), timer granularity and a wall clock slewed by
NTP. Should an honest page still be refused, it waits the time left and sends the same answer again (its response
times unchanged), so nobody is locked out.

Reloads: the clock starts at the *first* showing and is never reset, so a reload (which shows the trial again)
cannot shorten the wait, and cannot lengthen it either (time since the first showing only grows). A trial the
server never recorded as shown (a client that posts without asking for the state, or a showing lost to a power
cut: it is written to the log without an fsync) starts its clock at that answer, which is refused; the page then
waits the whole video and sends again. A kill -9 of the server loses no showing (it is in the write-ahead log).

Which trials: those with a video (practice, familiarization, judged, repeated, attention checks, catch videos:
a catch video is the source video with a dot, of the same length). A trial without a video (attention checks of
studies made before they had one) has no minimum. The duration is the manifest's n_frames / fps, kept with each
trial (`entry`, design.entry_fields); a study made before that keeps none, and gets the durations from the set's
manifest when it is served (the set is checked to be the one the study was made from).

`--min-viewing off` (stored with the design) turns the server's check off: for scripted clients (tests, load
benches) that answer at once; the page still unlocks answers at the video's end.
"""

from __future__ import annotations

import math

#: The rule's settings (`Design.min_viewing`): "video" (the default) or "off".
RULES = ("video", "off")
#: How much shorter than the video the server's span may be (see the module's docstring).
TOLERANCE_MS = 250


def entry_ms(entry: dict | None) -> int | None:
    """A video's duration in whole milliseconds from a manifest entry (or a trial's `entry`), or None if unknown."""
    if not entry:
        return None
    n, fps = entry.get("n_frames"), entry.get("fps")
    if isinstance(n, bool) or isinstance(fps, bool) or not isinstance(n, int) or not isinstance(fps, (int, float)):
        return None
    if n <= 0 or not fps > 0:
        return None
    return math.floor(1000 * n / fps)


def trial_ms(trial: dict, fallback: dict[str, int]) -> int | None:
    """The duration of trial `trial`'s video (None: no video, or unknown). From the trial's own `entry`, else from
    `fallback` (video id -> ms, for studies made before trials kept n_frames and fps), by the video's id or, for a
    catch video, its source's."""
    if not trial.get("video"):
        return None
    ms = entry_ms(trial.get("entry"))
    if ms is None:
        ms = fallback.get(str(trial.get("catch_of") or trial.get("video_id")))
    return ms


def wait_ms(duration_ms: int | None, first_shown_at: float | None, now: float) -> int:
    """Milliseconds left before an answer may be accepted (0: now). `first_shown_at` None: never shown, so the
    whole video (less the tolerance) is left."""
    if duration_ms is None:
        return 0
    need = duration_ms - TOLERANCE_MS
    elapsed = 0.0 if first_shown_at is None else 1000 * (now - first_shown_at)
    return max(0, math.ceil(round(need - elapsed, 3)))  # rounded first: float seconds carry noise below 1 us
