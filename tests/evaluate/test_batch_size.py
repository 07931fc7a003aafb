"""`--batch-size auto` (issue 28): the search finds the largest batch that fits, with a fake adapter whose trial
batches raise the GPU's out-of-memory error above a size (no GPU needed); the size found is kept on disk and read
back by a later run; a CPU gets the small default; the run records how the size was chosen."""

from __future__ import annotations

import json
import os

import pytest

from voebench.errors import UsageError
from voebench.evaluate import batch_size
from voebench.evaluate.models.fake import FakeAdapter
from voebench.evaluate.run import EvalConfig, EvalRunner
from voebench.evaluate.tasks import build_samples, load_manifest, select

torch = pytest.importorskip("torch")


def _fits_up_to(most: int, calls: list[int]):
    def fits(n: int) -> None:
        calls.append(n)
        if n > most:
            raise torch.cuda.OutOfMemoryError(f"CUDA out of memory: a batch of {n}")

    return fits


@pytest.mark.parametrize("most", [1, 2, 7, 8, 9, 37, 64, 100, 255, 256, 1000])
def test_search_finds_the_largest_batch_that_fits(most):
    calls: list[int] = []
    n, trials = batch_size.search(_fits_up_to(most, calls), start=8, limit=256)
    assert n == min(most, 256)
    assert [t["batch"] for t in trials] == calls
    assert all(t["fits"] == (t["batch"] <= most) for t in trials)
    assert len(calls) <= 2 * 9  # doubling then bisecting: logarithmic, never a linear walk
    assert max(calls) <= 256


def test_search_fails_in_one_line_when_nothing_fits_and_lets_other_errors_through():
    with pytest.raises(UsageError, match="not even one"):
        batch_size.search(_fits_up_to(0, []), start=8)

    def broken(n: int) -> None:
        raise ValueError("a processor bug, not memory")

    with pytest.raises(ValueError, match="processor bug"):
        batch_size.search(broken)


def test_out_of_memory_errors_are_recognised():
    assert batch_size.is_oom(torch.cuda.OutOfMemoryError("x"))
    assert batch_size.is_oom(RuntimeError("CUDA error: out of memory"))
    assert not batch_size.is_oom(RuntimeError("shape mismatch"))
    assert not batch_size.is_oom(ValueError("out of memory"))


class GpuFake(FakeAdapter):
    """fake:random answers, plus a pretend GPU on which batches above `most` run out of memory."""

    def __init__(self, most: int, gpu: str | None = "Pretend GPU 80 GiB"):
        super().__init__("random")
        self.batch_size = 1
        self.most, self.gpu, self.trials = most, gpu, []

    def gpu_name(self):
        return self.gpu

    def try_batch(self, requests):
        self.trials.append(len(requests))
        assert len({id(r) for r in requests}) == 1  # the run's longest request, repeated
        if len(requests) > self.most:
            raise torch.cuda.OutOfMemoryError("CUDA out of memory")


def _samples(tiny_set, strategy="zero-shot"):
    m = load_manifest(tiny_set)
    return build_samples(m, select(m, tests=["t09_gravity", "shape"]), strategy)


def _requests(tiny_set, strategy="zero-shot"):
    from voebench.evaluate.run import EvalJob

    r = EvalRunner.__new__(EvalRunner)
    r.cfg, r._frames = EvalConfig(strategy, num_frames=4), {}
    return [r._last_turn(EvalJob(s, 0, 5)) for s in _samples(tiny_set, strategy)]


def test_choose_searches_once_then_reads_the_cache(tiny_set, tmp_path):
    reqs = _requests(tiny_set) * 40  # more requests than any size tried: no cap from the run's length
    cache = str(tmp_path / "store" / batch_size.FILE)
    a = GpuFake(most=37)
    first = batch_size.choose(a, reqs, 4, None, cache)
    assert first["source"] == "search" and first["batch_size"] == a.batch_size == 37 and a.trials
    assert json.load(open(cache))[first["key"]]["batch_size"] == 37

    b = GpuFake(most=37)  # a later run: same model, sampling, videos, GPU
    again = batch_size.choose(b, reqs, 4, None, cache)
    assert again["source"] == "cache" and b.batch_size == 37 and b.trials == []

    for other in (GpuFake(most=20, gpu="Another GPU 40 GiB"),):  # another GPU: its own search
        got = batch_size.choose(other, reqs, 4, None, cache)
        assert got["source"] == "search" and got["batch_size"] == 20 and other.trials
    c = GpuFake(most=12)  # another sampling is another key
    assert batch_size.choose(c, reqs, 8, None, cache)["source"] == "search" and c.batch_size == 12
    assert len(json.load(open(cache))) == 3


def test_a_small_run_tries_no_batch_bigger_than_itself_and_a_bigger_run_searches_on(tiny_set, tmp_path):
    reqs = _requests(tiny_set)[:5]
    cache = str(tmp_path / batch_size.FILE)
    small = GpuFake(most=100)
    got = batch_size.choose(small, reqs, 4, None, cache, start=2)
    assert got["batch_size"] == 8 and max(small.trials) == 8  # 5 requests: capped at 8, memory not reached
    big = GpuFake(most=100)
    again = batch_size.choose(big, reqs * 40, 4, None, cache, start=2)  # 200 requests: the kept 8 was only the cap
    assert again["source"] == "search" and again["batch_size"] == 100 and min(big.trials) == 8
    third = GpuFake(most=100)  # memory's real limit is kept: any run reads it
    assert batch_size.choose(third, reqs, 4, None, cache)["source"] == "cache" and third.batch_size == 100


def test_choose_on_a_cpu_and_for_adapters_without_trials(tiny_set, tmp_path):
    reqs = _requests(tiny_set)
    cpu = GpuFake(most=1000, gpu=None)
    assert batch_size.choose(cpu, reqs, 4, None, str(tmp_path / "s.json")) == {
        "batch_size": batch_size.CPU_DEFAULT,
        "source": "cpu-default",
    }
    assert cpu.trials == [] and not os.path.exists(tmp_path / "s.json")
    plain = FakeAdapter("random")
    assert batch_size.choose(plain, reqs, 4, None, None) == {"batch_size": 64, "source": "adapter"}


def test_a_torn_cache_file_means_search_again(tiny_set, tmp_path):
    cache = tmp_path / batch_size.FILE
    cache.write_text('{"abc": {"batch_si')
    a = GpuFake(most=5)
    assert batch_size.choose(a, _requests(tiny_set) * 4, 4, None, str(cache))["source"] == "search"
    assert json.loads(cache.read_text())  # rewritten whole


def test_the_key_grows_with_what_takes_memory(tiny_set):
    zero, one_shot = _requests(tiny_set), _requests(tiny_set, "one-shot")
    a = GpuFake(most=8)
    p0 = batch_size.key_parts(a, zero, 4, None, "G")
    p1 = batch_size.key_parts(a, one_shot, 4, None, "G")
    assert p0["videos_per_request"] == 1 and p1["videos_per_request"] == 2
    assert batch_size.cache_key(p0) != batch_size.cache_key(p1)
    assert p0["resolution"][0] > 0


def test_runner_records_the_size_it_chose_and_answers_as_with_that_size(tiny_set, tmp_path):
    samples = _samples(tiny_set)
    cache = str(tmp_path / batch_size.FILE)
    cfg = EvalConfig("zero-shot", repeats=2, num_frames=4, batch_size_auto=True, batch_size_cache=cache)
    a = GpuFake(most=3)
    EvalRunner(a, samples, str(tmp_path / "auto"), cfg, progress=False).run()
    info = json.load(open(tmp_path / "auto" / "run.json"))
    assert info["batch_size"] == 3 and info["batch_size_auto"]["source"] == "search"
    assert info["timing"]["batch_size_search_s"] is not None

    fixed = GpuFake(most=3)
    fixed.batch_size = 3
    EvalRunner(fixed, samples, str(tmp_path / "fixed"), EvalConfig("zero-shot", repeats=2, num_frames=4)).run()

    def answers(d):
        return [json.loads(line)["response"] for line in open(tmp_path / d / "samples.jsonl")]

    assert answers("auto") == answers("fixed")
    assert "batch_size_auto" not in json.load(open(tmp_path / "fixed" / "run.json"))


def test_command_line_takes_auto_and_refuses_other_words(tiny_set, tmp_path, capsys):
    from voebench.cli import main

    out = tmp_path / "run"
    rc = main(
        ["evaluate", tiny_set, "--model", "fake:random", "--out", str(out), "--batch-size", "auto"]
        + ["--tests", "t09_gravity", "--repeats", "1", "--no-progress", "--frame-store", "off"]
    )
    assert rc == 0
    info = json.load(open(out / "run.json"))
    assert info["batch_size_auto"] == {"batch_size": 64, "source": "adapter"}
    for bad in ("0", "big"):
        with pytest.raises(SystemExit) as e:
            main(["evaluate", tiny_set, "--model", "fake:random", "--out", str(tmp_path / bad), "--batch-size", bad])
        assert e.value.code == 2
        assert "--batch-size" in capsys.readouterr().err
        assert not (tmp_path / bad).exists()
