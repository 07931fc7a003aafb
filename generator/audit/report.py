"""`voebench audit DIR`: audit every video of a rendered set (`audit_set`, trial by trial through
`audit_trial`), summarise the results per test (`summary`) and print / write them (`main`)."""

from __future__ import annotations

import os
import sys
from collections import Counter, defaultdict

from voebench.generator.audit.sweep import CHECK as SWEEP_CHECK
from voebench.generator.audit.sweep import sweep_findings
from voebench.generator.audit.trial import VideoResult, audit_trial
from voebench.parent_death import die_with_parent


def read_manifest(path: str) -> list[dict]:
    """The set's manifest through the data contract (a corrupt or cut-short manifest is refused)."""
    from voebench.contract.manifest import read_manifest as read

    return read(path, truncated="error")


def _audit_group(args) -> list[VideoResult]:
    """Audit the videos of one trial of the set in `out_dir` (a top-level function: pool workers call it)."""
    out_dir, group = args
    results = audit_trial([(g, os.path.join(out_dir, g["states"])) for g in group])
    sweep = sweep_findings(out_dir, group) if any(g.get("sweep_rank") for g in group) else {}
    for r in results:  # a swept trial: its levels must differ visibly more and more (audit/sweep.py)
        if r.id in sweep:
            r.checks = r.checks + (SWEEP_CHECK,)
            r.findings += sweep[r.id]
    return results


def audit_set(out_dir: str, progress: bool = False, workers: int | None = None) -> list[VideoResult]:
    """Every video of the set in `out_dir`, in manifest order (suite, test, index). Trials are audited in
    `workers` processes (default: the machine's cores, for sets of more than a few trials)."""
    entries = read_manifest(os.path.join(out_dir, "manifest.jsonl"))
    groups = defaultdict(list)
    for e in sorted(entries, key=lambda e: (e["suite"], e["test"], e["index"], e["id"])):
        groups[e.get("pair_id") or e["id"]].append(e)
    jobs = [(out_dir, g) for g in groups.values()]
    workers = workers if workers is not None else (os.cpu_count() or 1) if len(jobs) > 16 else 1
    results = []

    def collect(it):
        for rs in it:
            results.extend(rs)
            if progress:
                print(f"\raudit: {len(results)}/{len(entries)}", end="", file=sys.stderr, flush=True)

    if workers > 1:
        import multiprocessing as mp

        n = min(workers, len(jobs))  # the workers die with this process (src/voebench/parent_death.py)
        with mp.get_context("spawn").Pool(n, initializer=die_with_parent, initargs=(os.getpid(),)) as pool:
            collect(pool.imap(_audit_group, jobs, chunksize=4))
    else:
        collect(map(_audit_group, jobs))
    if progress:
        print(file=sys.stderr)
    return results


def summary(results: list[VideoResult]) -> str:
    videos: Counter[str] = Counter()
    passed: Counter[str] = Counter()
    failing: defaultdict[str, Counter[str]] = defaultdict(Counter)  # test -> failing check -> videos
    for r in results:
        key = f"{r.suite}/{r.test}"
        videos[key] += 1
        passed[key] += r.ok
        failing[key].update(r.failed_checks())
    width = max([len(k) for k in videos] + [4])
    lines = [f"{'test':<{width}}  videos  passed  failed  failing checks (videos)"]
    for k in sorted(videos):
        n, ok, c = videos[k], passed[k], failing[k]
        lines.append(
            f"{k:<{width}}  {n:>6}  {ok:>6}  {n - ok:>6}  "
            + (", ".join(f"{name} ({cnt})" for name, cnt in sorted(c.items())) or "-")
        )
    n = len(results)
    ok = sum(r.ok for r in results)
    lines.append(f"{'all':<{width}}  {n:>6}  {ok:>6}  {n - ok:>6}")
    return "\n".join(lines)


def main(out_dir: str, json_path: str | None = None, verbose: bool = True, workers: int | None = None) -> int:
    results = audit_set(out_dir, progress=verbose and sys.stderr.isatty(), workers=workers)
    if not results and verbose:
        print(f"{out_dir}: the manifest lists no videos", file=sys.stderr)
    if verbose:
        for r in results:
            for f in r.findings:
                print(f"FAIL {r.id}: {f.check}: {f.detail}")
        print(summary(results))
        skipped = Counter(c for r in results for c, _ in r.skipped)
        if skipped:
            print("skipped: " + ", ".join(f"{c} ({n} videos)" for c, n in sorted(skipped.items())))
    if json_path:
        from voebench.generator.output import write_json_atomic

        write_json_atomic(
            json_path,
            {
                "dir": out_dir,
                "videos": len(results),
                "passed": sum(r.ok for r in results),
                "results": [r.as_dict() for r in results],
            },
        )
    return 0 if results and all(r.ok for r in results) else 1
