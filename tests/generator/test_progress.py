"""A run's output stays readable: plain progress lines every ~5% off a terminal, one line per failed video
with the tracebacks in <out>/voebench-errors.log, a summary, and a non-zero exit."""

from __future__ import annotations

import io

from conftest import TINY

from voebench.generator.progress import ERRORS_LOG, FailureLog, Progress, last_line


def test_off_a_terminal_progress_prints_a_line_every_5_percent_and_at_the_end():
    stream = io.StringIO()  # not a TTY, like CI or nohup
    bar = Progress(768, "grasp-l2", stream=stream)
    for i in range(768):
        bar.update(frames=500, failed=i % 100 == 0)
    bar.close()
    lines = stream.getvalue().splitlines()
    assert 19 <= len(lines) <= 21, lines
    assert lines[-1].startswith("grasp-l2: 768/768 videos (100%), 8 failed")
    assert "\r" not in stream.getvalue()  # no bar redraws in a log


def test_a_short_run_prints_at_most_one_line_per_video_and_quiet_prints_none():
    stream = io.StringIO()
    bar = Progress(3, "avoe", stream=stream)
    for _ in range(3):
        bar.update()
    assert len(stream.getvalue().splitlines()) == 3 and "3/3" in stream.getvalue().splitlines()[-1]
    quiet = io.StringIO()
    bar = Progress(3, "avoe", enabled=False, stream=quiet)
    bar.update()
    bar.write("FAILED x: y")  # failures are printed even when quiet
    assert quiet.getvalue() == "FAILED x: y\n"


def test_failures_are_one_line_each_and_the_tracebacks_go_to_the_log(tmp_path):
    said = []
    log = FailureLog(str(tmp_path), say=said.append)
    tb = 'Traceback (most recent call last):\n  File "x.py", line 1, in <module>\nValueError: bad fov\n'
    log.add("grasp-l1/shape/00000", tb)
    log.add("grasp-l1/shape/00001", tb)
    assert said == [
        "FAILED grasp-l1/shape/00000: ValueError: bad fov",
        "FAILED grasp-l1/shape/00001: ValueError: bad fov",
    ]
    text = (tmp_path / ERRORS_LOG).read_text()
    assert text.count("Traceback") == 2 and "---- grasp-l1/shape/00001" in text
    assert log.summary() == f"2 failed (2x ValueError: bad fov); full tracebacks in {tmp_path / ERRORS_LOG}"
    assert last_line("") == "unknown error" and len(last_line("x" * 1000)) == 300


def test_a_run_whose_videos_fail_prints_one_line_each_and_exits_1(tmp_path, monkeypatch, capsys):
    from voebench.cli import main
    from voebench.generator import workers

    def broken(trial, cfg, *rest):
        raise RuntimeError(f"simulated failure\nof {trial.id}, on a second line of the message")

    monkeypatch.setattr(workers, "produce", broken)  # every backend makes a trial through it
    out = tmp_path / "set"
    rc = main(
        [
            "render",
            "grasp-l1",
            "--out",
            str(out),
            "--videos-per-test",
            "2",
            "--tests",
            "shape,color",
            *TINY,
            "--workers",
            "1",
            "--states-only",
        ]
    )
    err = capsys.readouterr().err.splitlines()
    assert rc == 1
    failed = [ln for ln in err if ln.startswith("FAILED ")]
    assert len(failed) == 4 and failed[0] == "FAILED grasp-l1/shape/00000: RuntimeError: simulated failure"
    assert not any("Traceback" in ln for ln in err)
    assert err[-1].startswith("4 failed (4x RuntimeError: simulated failure)") and ERRORS_LOG in err[-1]
    log = (out / ERRORS_LOG).read_text()
    assert log.count("Traceback") == 4 and "of grasp-l1/color/00001, on a second line" in log
