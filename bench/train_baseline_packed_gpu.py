#!/usr/bin/env python3
"""AVoE baselines on one GPU from packed categories, several trainings at once, within a time budget.

    python bench/train_baseline_packed_gpu.py PACK_DIR --models ofpr,of,direct,random --seeds 1-3 \\
        --concurrent 3 --budget-s 480 --out /tmp/runs --report $OUT [--prev prev-runs.tar.gz]

PACK_DIR holds ``avoe-<category>.npz`` (``bench/pack_avoe.py``). The script

1. decodes each pack once into a uint8 (N, 3, 50, 112, 112) array, kept as ``.npy`` under ``--decoded``
   (16 threads; later processes memory-map it, nothing decodes per epoch);
2. runs the random baseline in this process (labels only);
3. starts ``--concurrent`` worker processes that take (model, category, seed) jobs from one queue in priority
   order (models as listed, then seed, then category, so a cut-short call still covers every category). Each
   worker moves its category's clips to the GPU once and trains there (``SeedTrainer``: Table-3
   hyper-parameters, bf16, clips and labels on the GPU). Several processes raise the GPU's busy share but not the
   clips trained per second (issue 28: three runs 320 clips/s together, one alone 337). A worker skips a job
   that would not end before the budget runs out (judged from the last run of the same model and category),
   since an unfinished run is lost when the machine goes back;
4. samples GPU utilisation with nvidia-smi once a second over the whole training phase;
5. writes RUN_DIR/table4.md and .json, prints them, and writes to ``--report`` two files: summary.json (every
   run's test metrics, best epoch, seconds per epoch, the utilisation timeline) and runs.tar.gz (metrics.json +
   history.jsonl of every run: ``bench/baseline_tables.py`` rebuilds the tables from it, and ``--prev`` reads it
   back, so a later call skips what an earlier one finished).

Checkpoints (0.5 GB each) are deleted after each run: the disk holds 64 GiB and they would not come back.

The frozen-backbone variant: ``--pretrain future`` (or ``clip``) first pretrains the backbone on the expected
training clips of the ``--categories`` (``voebench.evaluate.baseline.pretrain``; never validation or test clips),
writes it to RUN_DIR/pretrained-backbone.pt and its loss curve to the report's pretrain.json; with
``--freeze-backbone`` the workers then train only the heads on it. ``--pretrained FILE`` uses existing weights.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import shutil
import subprocess
import sys
import tarfile
import threading
import time
from pathlib import Path

BENCH = Path(__file__).resolve().parent
SPLIT_NAMES = ("train", "validation", "test")


def parse_list(text: str) -> list[str]:
    return [p.strip() for p in text.split(",") if p.strip()]


def parse_seeds(text: str) -> list[int]:
    out: list[int] = []
    for part in parse_list(text):
        if "-" in part:
            a, b = part.split("-", 1)
            out += list(range(int(a), int(b) + 1))
        else:
            out.append(int(part))
    return out


class UtilSampler:
    """nvidia-smi utilisation and memory once a second, with timestamps, in a thread."""

    def __init__(self, interval: float = 1.0):
        self.interval = interval
        self.samples: list[tuple[float, float, float]] = []  # (t, util %, memory MiB)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._loop, daemon=True)
        self.available = shutil.which("nvidia-smi") is not None

    def _loop(self) -> None:
        while not self._stop.wait(self.interval):
            try:
                r = subprocess.run(
                    [
                        "nvidia-smi",
                        "--id=0",
                        "--query-gpu=utilization.gpu,memory.used",
                        "--format=csv,noheader,nounits",
                    ],
                    capture_output=True,
                    text=True,
                    timeout=5,
                )
                u, m = (float(v) for v in r.stdout.strip().splitlines()[0].split(","))
                self.samples.append((time.time(), u, m))
            except Exception:  # noqa: BLE001  (a failed sample never stops the run)
                continue

    def start(self) -> None:
        if self.available:
            self._thread.start()

    def stop(self) -> None:
        self._stop.set()
        if self.available:
            self._thread.join(timeout=10)

    def mean(self, t0: float, t1: float) -> float | None:
        vals = [u for t, u, _ in self.samples if t0 <= t <= t1]
        return sum(vals) / len(vals) if vals else None


def default_estimate(
    model: str, n_train: int, n_val: int, epochs: int, batch: int, concurrent: int, frozen: bool = False
) -> float:
    """Seconds a run should take before one has been measured: a conservative 400 clips/s shared by the
    workers (220 at batch size 4, which is launch-bound), validation at a third of a training clip's cost.
    A frozen backbone embeds each clip once (counted at 200 clips/s shared) and then trains only the heads."""
    if frozen:
        return 2 * (n_train + n_val) / (200.0 / concurrent) + epochs * 0.5 + 15
    rate = (220.0 if batch <= 4 else 400.0) / concurrent
    return 1.2 * epochs * (n_train + n_val / 3) / rate + 15


def worker(wid: int, args: dict, jobs, results, estimates, deadline: float) -> None:
    sys.path.insert(0, str(BENCH))
    from checkout import import_evaluate

    import_evaluate()
    import numpy as np
    import torch

    from voebench.evaluate.baseline.pack import splits_from_pack
    from voebench.evaluate.baseline.published import TUNED
    from voebench.evaluate.baseline.train import SeedTrainer, TrainConfig

    torch.set_num_threads(args["threads"])
    run_dir = Path(args["out"])
    loaded_cat, splits = None, None
    while True:
        job = jobs.get()
        if job is None:
            results.put({"kind": "worker-exit", "worker": wid, "t": time.time()})
            return
        model, cat, seed = job
        seed_dir = run_dir / f"{model}-{cat}" / f"seed{seed}"
        if (seed_dir / "metrics.json").is_file():
            results.put({"kind": "done-before", "job": job})
            continue
        if loaded_cat != cat:
            splits = None
            torch.cuda.empty_cache()
            clips = np.load(args["decoded"][cat], mmap_mode="r")
            splits = splits_from_pack(args["packs"][cat], clips, limit=args["limit"], train_limit=args["train_limit"])
            loaded_cat = cat
        train_on = args["direct_train_on"] if model == "direct" else "expected"
        tr = splits["train"]
        n_train = int(len(tr) if train_on == "all" else int((tr.surprising == 0).sum()))
        n_val = len(splits["validation"]) if splits.get("validation") is not None else 0
        guess = estimates.get((model, cat)) or default_estimate(
            model, n_train, n_val, args["epochs"], TUNED[cat]["batch_size"], args["concurrent"], args["freeze"]
        )
        if time.time() + guess > deadline:
            results.put({"kind": "skipped", "job": job, "estimate_s": guess, "worker": wid})
            continue
        if seed_dir.exists():  # an unfinished run of an earlier, killed process: start it over
            shutil.rmtree(seed_dir)
        cfg = TrainConfig(
            model=model,
            category=cat,
            seed=seed,
            epochs=args["epochs"],
            train_on=train_on,
            augment=args["augment"],
            backbone=args["backbone"],
            width=args["width"],
            pretrained=args["pretrained"],
            freeze_backbone=args["freeze"],
            lr=args["lr"],
            optimizer=args["optimizer"],
            progress=False,
            checkpoint_every_s=1e9,  # the run is lost with the machine anyway; only the final save happens
        )
        t0 = time.time()
        try:
            r = SeedTrainer(cfg, splits, seed_dir).train()
        except Exception as e:  # noqa: BLE001  (report and go on with the other jobs)
            results.put({"kind": "failed", "job": job, "error": repr(e), "worker": wid})
            continue
        dt = time.time() - t0
        estimates[(model, cat)] = dt
        for pt in seed_dir.glob("*.pt"):
            pt.unlink()
        results.put(
            {
                "kind": "done",
                "job": job,
                "worker": wid,
                "t0": t0,
                "seconds": dt,
                "test": r["test"],
                "best_epoch": r.get("best_epoch"),
                "n_train": n_train,
            }
        )


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("packs", help="folder with avoe-<category>.npz")
    ap.add_argument("--models", default="ofpr,of,direct,random")
    ap.add_argument("--categories", default="A,B,C,D,E")
    ap.add_argument("--seeds", default="1-3")
    ap.add_argument("--epochs", type=int, default=30)
    ap.add_argument(
        "--concurrent",
        type=int,
        default=3,
        help="trainings at once on the GPU (for the queue and the budget: three gave no more clips/s than one, "
        "issue 28)",
    )
    ap.add_argument("--threads", type=int, default=4, help="CPU threads per worker")
    ap.add_argument("--budget-s", type=float, default=480, help="no job starts that would end after this")
    ap.add_argument("--limit", type=int, help="first N trials per split (smoke runs)")
    ap.add_argument("--train-limit", type=int, help="first N training trials only (a data-size experiment)")
    ap.add_argument("--backbone", default="resnet34", help="resnet34 as the paper; resnet10 for CPU smoke runs")
    ap.add_argument("--width", type=int, default=64)
    ap.add_argument("--augment", action="store_true", help="GPU augmentation (the original used none)")
    ap.add_argument(
        "--direct-train-on",
        default="expected",
        choices=("expected", "all"),
        help="the direct model's training videos (expected: the original's setup; all needs surprising ones)",
    )
    ap.add_argument("--pretrained", help="backbone weights for every run (train-baseline's --pretrained)")
    ap.add_argument("--freeze-backbone", action="store_true", help="train only the heads (with --pretrain[ed])")
    ap.add_argument("--lr", type=float, help="learning rate for every run instead of Table 3's per category")
    ap.add_argument("--optimizer", choices=("adam", "sgd"), help="optimizer for every run instead of Table 3's")
    ap.add_argument(
        "--pretrain",
        choices=("future", "clip"),
        help="first pretrain the backbone on the expected training clips of --categories with this objective "
        "(voebench.evaluate.baseline.pretrain) and use it as --pretrained",
    )
    ap.add_argument("--pretrain-epochs", type=int, default=30)
    ap.add_argument("--pretrain-max-s", type=float, default=180, help="stop pretraining after this many seconds")
    ap.add_argument("--pretrain-batch", type=int, default=32)
    ap.add_argument("--decoded", default="/tmp/voebench-decoded", help="cache of decoded packs (.npy)")
    ap.add_argument("--out", default="/tmp/voebench-baseline-runs", help="run directory")
    ap.add_argument("--report", help="folder for summary.json, the tables and runs.tar.gz (e.g. $OUT)")
    ap.add_argument("--prev", action="append", default=[], help="runs.tar.gz of an earlier call (repeatable)")
    args = ap.parse_args()
    t_start = time.time()
    deadline = t_start + args.budget_s

    sys.path.insert(0, str(BENCH))
    from checkout import import_evaluate

    import_evaluate()
    import torch

    from voebench.evaluate.baseline.pack import PACK_NAME, decode_pack, decoded_path, read_pack, splits_from_pack
    from voebench.evaluate.baseline.tables import comparison_table, write_tables
    from voebench.evaluate.baseline.train import SeedTrainer, TrainConfig

    cuda = torch.cuda.is_available()
    gpu_name = torch.cuda.get_device_name(0) if cuda else "cpu"
    print(f"torch {torch.__version__}, device {gpu_name}", flush=True)
    run_dir = Path(args.out)
    run_dir.mkdir(parents=True, exist_ok=True)
    for prev in args.prev:
        with tarfile.open(prev) as tf:
            tf.extractall(run_dir, filter="data")
    cats = parse_list(args.categories)
    models = parse_list(args.models)
    seeds = parse_seeds(args.seeds)
    packs = {c: str(Path(args.packs) / PACK_NAME.format(category=c)) for c in cats}

    # 1. decode every pack once
    decoded, decode_s = {}, {}
    gpu_models = [m for m in models if m != "random"]
    for c in cats:
        t0 = time.time()
        arr = decode_pack(packs[c], size=112, workers=16, cache_dir=args.decoded) if gpu_models else None
        decode_s[c] = time.time() - t0
        if arr is not None:
            decoded[c] = str(decoded_path(packs[c], 112, int(read_pack(packs[c])["n_frames"]), args.decoded))
            print(f"[{c}] {arr.shape[0]} clips {tuple(arr.shape[1:])} decoded in {decode_s[c]:.1f} s", flush=True)

    # 1b. self-supervised pretraining of the backbone on the expected training clips (never validation/test)
    pretrain_record = None
    if args.pretrain:
        import numpy as np

        from voebench.evaluate.baseline.pretrain import PretrainConfig, pack_training_clips, pretrain, save_backbone

        arrays = {c: np.load(decoded[c], mmap_mode="r") for c in cats}
        clips = torch.from_numpy(pack_training_clips(packs, arrays))
        print(f"pretraining ({args.pretrain}) on {len(clips)} expected training clips of {','.join(cats)}", flush=True)
        pcfg = PretrainConfig(
            objective=args.pretrain,
            backbone=args.backbone,
            width=args.width,
            epochs=args.pretrain_epochs,
            batch_size=args.pretrain_batch,
            max_seconds=args.pretrain_max_s,
        )
        psampler = UtilSampler()
        psampler.start()
        t0 = time.time()
        backbone, pretrain_record = pretrain(clips, pcfg, log=lambda s: print(s, flush=True))
        psampler.stop()
        pretrain_record["gpu_util_mean"] = psampler.mean(t0, time.time())
        args.pretrained = str(run_dir / "pretrained-backbone.pt")
        save_backbone(args.pretrained, backbone, pretrain_record)
        print(
            f"pretrained in {pretrain_record['seconds']:.0f} s, "
            f"final loss {pretrain_record['history'][-1]['loss']:.5f} "
            f"(mean prediction {pretrain_record['baseline_loss']:.5f}), GPU {pretrain_record['gpu_util_mean']} %",
            flush=True,
        )
        del clips, backbone, arrays
        torch.cuda.empty_cache()

    # 2. random baseline here (labels only)
    if "random" in models:
        for c in cats:
            splits = splits_from_pack(packs[c], None, limit=args.limit)
            for s in seeds:
                d = run_dir / f"random-{c}" / f"seed{s}"
                if not (d / "metrics.json").is_file():
                    SeedTrainer(TrainConfig(model="random", category=c, seed=s, progress=False), splits, d).train()

    # 3. the GPU jobs, in priority order
    events: list[dict] = []
    t_train0 = time.time()
    sampler = UtilSampler()
    sampler.start()
    if gpu_models:
        ctx = mp.get_context("spawn")
        jobs, results = ctx.Queue(), ctx.Queue()
        manager = ctx.Manager()
        estimates = manager.dict()
        for m in gpu_models:
            for s in seeds:
                for c in cats:
                    jobs.put((m, c, s))
        for _ in range(args.concurrent):
            jobs.put(None)
        wargs = {
            "out": str(run_dir),
            "decoded": decoded,
            "packs": packs,
            "epochs": args.epochs,
            "limit": args.limit,
            "train_limit": args.train_limit,
            "augment": args.augment,
            "threads": args.threads,
            "concurrent": args.concurrent,
            "direct_train_on": args.direct_train_on,
            "backbone": args.backbone,
            "width": args.width,
            "pretrained": args.pretrained,
            "freeze": args.freeze_backbone,
            "lr": args.lr,
            "optimizer": args.optimizer,
        }
        procs = [
            ctx.Process(target=worker, args=(i, wargs, jobs, results, estimates, deadline))
            for i in range(args.concurrent)
        ]
        for p in procs:
            p.start()
        exited = 0
        while exited < len(procs):
            try:
                ev = results.get(timeout=5)
            except Exception:  # noqa: BLE001  (queue.Empty: check that the workers live)
                if not any(p.is_alive() for p in procs):
                    break
                continue
            ev["t_rel"] = time.time() - t_start
            events.append(ev)
            if ev["kind"] == "worker-exit":
                exited += 1
            elif ev["kind"] == "done":
                m, c, s = ev["job"]
                print(
                    f"{time.time() - t_start:6.0f}s w{ev['worker']} {m} {c} seed {s}: hit {ev['test']['hit_rate']:.3f} "
                    f"AUC {ev['test']['auc']:.3f} best epoch {ev['best_epoch']} ({ev['seconds']:.0f} s)",
                    flush=True,
                )
            else:
                print(f"{time.time() - t_start:6.0f}s {ev['kind']} {ev.get('job')} {ev.get('error', '')}", flush=True)
        for p in procs:
            p.join(timeout=30)
        manager.shutdown()
    t_train1 = time.time()
    sampler.stop()

    # 4. tables and the report
    text, _ = write_tables(run_dir)
    print(text)
    print(comparison_table(run_dir))
    exits = [e["t"] for e in events if e["kind"] == "worker-exit"]
    all_busy_until = min(exits) if exits else t_train1
    runs = []
    for f in sorted(run_dir.glob("*-*/seed*/metrics.json")):
        m = json.loads(f.read_text())
        hist = (
            [json.loads(line) for line in (f.parent / "history.jsonl").read_text().splitlines()]
            if (f.parent / "history.jsonl").is_file()
            else []
        )
        epoch_s = sorted(h["epoch_s"] for h in hist)
        runs.append(
            {
                "model": m["model"],
                "category": m["category"],
                "seed": m["seed"],
                "test": m["test"],
                "validation": m.get("validation"),
                "best_epoch": m.get("best_epoch"),
                "epochs_run": m.get("epochs_run"),
                "median_epoch_s": epoch_s[len(epoch_s) // 2] if epoch_s else None,
                "throughput": m.get("throughput"),
                "gpu_utilisation": m.get("gpu_utilisation"),
                "gpu_name": m.get("gpu_name"),
                "gpu_peak_memory_gb": m.get("gpu_peak_memory_gb"),
                "config": {
                    k: m["config"].get(k)
                    for k in ("lr", "batch_size", "optimizer", "epochs", "train_on", "augment", "freeze_backbone")
                },
            }
        )
    summary = {
        "device": gpu_name,
        "torch": torch.__version__,
        "args": vars(args),
        "decode_s": decode_s,
        "train_phase_s": t_train1 - t_train0,
        "gpu_util_mean_train_phase": sampler.mean(t_train0, t_train1),
        "gpu_util_mean_all_workers_busy": sampler.mean(t_train0 + 20, all_busy_until),
        "all_workers_busy_s": all_busy_until - t_train0,
        "util_timeline": [(round(t - t_start, 1), u, m) for t, u, m in sampler.samples],
        "events": events,
        "runs": runs,
        "pretraining": pretrain_record,
    }
    print(
        f"GPU utilisation: {summary['gpu_util_mean_train_phase']} % over the training phase "
        f"({summary['train_phase_s']:.0f} s), {summary['gpu_util_mean_all_workers_busy']} % while all "
        f"{args.concurrent} workers had jobs; total {time.time() - t_start:.0f} s",
        flush=True,
    )
    if args.report:
        rep = Path(args.report)
        rep.mkdir(parents=True, exist_ok=True)
        (rep / "summary.json").write_text(json.dumps(summary, indent=1, default=str))
        # two files per call (a call brings back at most 8): the tables are rebuilt from runs.tar.gz with
        # bench/baseline_tables.py, and printed above
        with tarfile.open(rep / "runs.tar.gz", "w:gz") as tf:
            for f in sorted(run_dir.glob("*-*/seed*/*")):
                if f.name in ("metrics.json", "history.jsonl") and (f.parent / "metrics.json").is_file():
                    tf.add(f, arcname=str(f.relative_to(run_dir)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
