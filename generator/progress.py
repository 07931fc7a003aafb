"""What a run says while it works: progress that fits where it is read, and failures that do not flood.

- `Progress`: a tqdm bar on a terminal; when stderr is not a terminal (CI, nohup, a pipe into a log) one plain
  line every ~5% of the videos and one at the end, instead of a bar redrawn (and logged) a thousand times.
- `FailureLog`: one line per failed video (or trial: both videos of a pair are made together) on stderr
  (`FAILED <id>: <last line of the error>`), the full traceback appended to `<out>/voebench-errors.log`, and a
  summary line. A setting that breaks every video
  used to print a traceback per video (768 for a Level 2 set) and bury the cause.
"""

from __future__ import annotations

import datetime
import os
import re
import sys
import time
from collections import Counter

#: the file in the output folder that collects the full tracebacks of failed videos (appended, one run after
#: another, each run headed by its start time)
ERRORS_LOG = "voebench-errors.log"


_EXCEPTION_LINE = re.compile(r"^[A-Za-z_][\w.]*(Error|Exception|Exit|Interrupt|Infeasible)\b")


def last_line(error: str, limit: int = 300) -> str:
    """The line of a traceback that says what went wrong: the last `SomeError: message` line (a message of
    several lines would otherwise leave only its tail), else the last non-empty line; shortened."""
    lines = [ln.rstrip() for ln in str(error).strip().splitlines() if ln.strip()]
    line = next(
        (ln for ln in reversed(lines) if _EXCEPTION_LINE.match(ln)), lines[-1].strip() if lines else "unknown error"
    )
    return line if len(line) <= limit else line[: limit - 3] + "..."


class Progress:
    """Videos done out of `total`, with frames per second and failures, on `stream` (stderr)."""

    def __init__(self, total: int, desc: str, skipped: int = 0, enabled: bool = True, stream=None, step: float = 0.05):
        self.total, self.desc, self.skipped = total, desc, skipped
        self.stream = stream if stream is not None else sys.stderr
        self.enabled = enabled and total > 0
        self.done = self.failed = self.frames = 0
        self.t0 = time.perf_counter()
        self.step = max(1, int(round(total * step)))  # videos between two plain lines
        self.next_line = self.step
        self.bar = None
        isatty = getattr(self.stream, "isatty", None)
        if self.enabled and isatty is not None and isatty():
            from tqdm import tqdm

            self.bar = tqdm(
                total=total, unit="video", desc=desc, dynamic_ncols=True, file=self.stream, postfix={"skipped": skipped}
            )

    def rate(self) -> float:
        return self.frames / max(time.perf_counter() - self.t0, 1e-9)

    def update(self, videos: int = 1, frames: int = 0, failed: bool = False) -> None:
        """`videos` more are finished (a trial may hold several); `failed`: they failed."""
        self.done += videos
        self.frames += frames
        self.failed += videos if failed else 0
        if not self.enabled:
            return
        if self.bar is not None:
            self.bar.update(videos)
            self.bar.set_postfix({"frames/s": f"{self.rate():.0f}", "failed": self.failed})
        elif self.done >= self.next_line or self.done == self.total:
            self._line()
            while self.next_line <= self.done:
                self.next_line += self.step

    def _line(self) -> None:
        elapsed = time.perf_counter() - self.t0
        pct = 100.0 * self.done / self.total
        print(
            f"{self.desc}: {self.done}/{self.total} videos ({pct:.0f}%), {self.failed} failed, "
            f"{self.rate():.0f} frames/s, {elapsed:.0f} s"
            + (f", {self.skipped} already there" if self.skipped else ""),
            file=self.stream,
            flush=True,
        )

    def write(self, line: str) -> None:
        """Print a line without breaking the bar."""
        if self.bar is not None:
            self.bar.write(line, file=self.stream)
        else:
            print(line, file=self.stream, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.close()
            self.bar = None


class FailureLog:
    """Collects failed videos: a line each through `say` (e.g. `Progress.write`), the traceback in the log."""

    def __init__(self, out: str, say=None):
        self.path = os.path.join(out, ERRORS_LOG)
        self.say = say if say is not None else (lambda line: print(line, file=sys.stderr, flush=True))
        self.failures: list[tuple[str, str]] = []
        self._started = False

    def add(self, video_id: str, error: str) -> None:
        self.failures.append((video_id, error))
        self.say(f"FAILED {video_id}: {last_line(error)}")
        try:
            with open(self.path, "a", encoding="utf-8") as f:
                if not self._started:
                    f.write(f"==== run started {datetime.datetime.now().isoformat(timespec='seconds')}\n")
                    self._started = True
                f.write(f"---- {video_id}\n{str(error).rstrip()}\n")
        except OSError as e:  # the log is a convenience: never let it hide the failure itself
            self.say(f"(could not append to {self.path}: {e.strerror})")

    def summary(self) -> str | None:
        return failure_summary(self.failures, self.path)


def failure_summary(failures: list[tuple[str, str]], log_path: str) -> str | None:
    """One line for the end of a run (how many failed, the most common causes, where the tracebacks are), or
    None when nothing failed. A failure is a video or a whole trial (both videos of a pair are made together)."""
    if not failures:
        return None
    causes = Counter(last_line(e, 120) for _, e in failures).most_common()
    shown = "; ".join(f"{n}x {c}" for c, n in causes[:3]) + ("; ..." if len(causes) > 3 else "")
    return f"{len(failures)} failed ({shown}); full tracebacks in {log_path}"
