"""Training and evaluation of the AVoE baselines (one category, one model, one or more seeds).

Layout of a run directory::

    RUN_DIR/<model>-<category>/seed<k>/last.pt        checkpoint after every epoch (resume from here)
    RUN_DIR/<model>-<category>/seed<k>/best.pt        weights with the best validation hit rate (ties: AUC)
    RUN_DIR/<model>-<category>/seed<k>/history.jsonl  one line per epoch (loss, validation metrics, clips/s)
    RUN_DIR/<model>-<category>/seed<k>/metrics.json   test metrics of best.pt (its presence = seed done)
    RUN_DIR/<model>-<category>/grid.json              grid-search results, when asked for
    RUN_DIR/table4.md, RUN_DIR/table4.json            every finished seed in the layout of supplementary Table 4
"""

from __future__ import annotations

import json
import math
import os
import random
import shutil
import subprocess
import threading
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch

from voebench.contract import avoe_labels as L
from .backbone import build_backbone, freeze, load_pretrained
from .data import AVoEDataset
from .metrics import all_metrics
from .models import MODEL_TITLES, BaselineNet, compute_loss, predicted_features, predicted_posteriors, random_scores
from .trees import PhysicalReasoning

# Supplementary Table 3 (tuned per category) and the grid of Section 4.
TUNED = {
    "A": {"lr": 0.007, "batch_size": 16, "optimizer": "sgd"},
    "B": {"lr": 0.03, "batch_size": 8, "optimizer": "sgd"},
    "C": {"lr": 0.005, "batch_size": 8, "optimizer": "adam"},
    "D": {"lr": 0.01, "batch_size": 16, "optimizer": "adam"},
    "E": {"lr": 0.001, "batch_size": 4, "optimizer": "adam"},
}
GRID = {
    "lr": [3e-2, 1e-2, 7e-3, 5e-3, 3e-3, 1e-3, 7e-4, 5e-4],
    "batch_size": [2, 4, 8, 16, 32, 64],
    "optimizer": ["adam", "sgd"],
}
# Supplementary Table 4, seeds 1-10 (hit rate, normal reality).
PUBLISHED_HIT_RATE = {
    "ofpr": {"A": [0.68, 0.69, 0.71, 0.69, 0.68, 0.65, 0.64, 0.66, 0.66, 0.7],
             "B": [0.91, 0.93, 0.88, 0.92, 0.91, 0.9, 0.91, 0.92, 0.89, 0.9],
             "C": [0.86, 0.81, 0.76, 0.79, 0.86, 0.87, 0.82, 0.81, 0.83, 0.89],
             "D": [0.53, 0.53, 0.56, 0.54, 0.48, 0.55, 0.53, 0.52, 0.53, 0.55],
             "E": [0.8, 0.73, 0.77, 0.67, 0.78, 0.75, 0.92, 0.68, 0.76, 0.82]},
    "of": {"A": [0.65, 0.63, 0.66, 0.64, 0.58, 0.63, 0.64, 0.64, 0.64, 0.58],
           "B": [0.82, 0.76, 0.82, 0.86, 0.85, 0.82, 0.83, 0.78, 0.85, 0.79],
           "C": [0.81, 0.83, 0.81, 0.81, 0.82, 0.74, 0.81, 0.84, 0.78, 0.78],
           "D": [0.48, 0.49, 0.49, 0.45, 0.52, 0.55, 0.49, 0.44, 0.47, 0.53],
           "E": [0.75, 0.8, 0.75, 0.77, 0.73, 0.71, 0.76, 0.74, 0.75, 0.69]},
}


@dataclass
class TrainConfig:
    model: str = "ofpr"
    category: str = "A"
    lr: float | None = None           # None: Table 3 for the category
    batch_size: int | None = None
    optimizer: str | None = None      # "adam" or "sgd" (momentum 0.9)
    epochs: int = 30
    seed: int = 1
    backbone: str = "resnet34"
    width: int = 64
    pretrained: str | None = None
    freeze_backbone: bool = False
    warmup_epochs: int = 10           # then only the category's relevant heads enter the loss
    train_on: str | None = None       # "expected" / "all"; None: expected for ofpr/of, all for direct
    device: str = "auto"
    amp: bool = True                  # bf16 autocast on CUDA
    data_on_gpu: str = "auto"         # keep the uint8 clips on the GPU: auto / yes / no
    tree_backend: str = "auto"        # "auto" / "sklearn" / "numpy"
    progress: bool = True
    checkpoint_every_s: float = 120.0
    extra: dict = field(default_factory=dict)

    def resolved(self) -> "TrainConfig":
        tuned = TUNED[self.category]
        return replace(self, lr=self.lr if self.lr is not None else tuned["lr"],
                       batch_size=self.batch_size if self.batch_size is not None else tuned["batch_size"],
                       optimizer=(self.optimizer or tuned["optimizer"]).lower(),
                       train_on=self.train_on or ("all" if self.model == "direct" else "expected"))


def pick_device(name: str = "auto") -> torch.device:
    dev = torch.device(("cuda" if torch.cuda.is_available() else "cpu") if name == "auto" else name)
    if dev.type == "cuda" and dev.index is None:    # "cuda" -> "cuda:N", so device comparisons hold
        dev = torch.device("cuda", torch.cuda.current_device())
    return dev


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % (2 ** 32))
    torch.manual_seed(seed)


# ----------------------------------------------------------------------------------------------------------------
# GPU utilisation

class GpuMonitor:
    """Samples GPU utilisation (%) and memory once a second in a thread: nvidia-smi, else torch.cuda.utilization."""

    def __init__(self, device: torch.device, interval: float = 1.0):
        self.device, self.interval = device, interval
        self.samples: list[float] = []
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None
        self.source = None
        if device.type == "cuda":
            if shutil.which("nvidia-smi"):
                self.source = "nvidia-smi"
            else:
                try:
                    torch.cuda.utilization(device)
                    self.source = "torch.cuda.utilization"
                except Exception:
                    self.source = None

    def _read(self) -> float | None:
        idx = self.device.index if self.device.index is not None else torch.cuda.current_device()
        if self.source == "nvidia-smi":
            visible = os.environ.get("CUDA_VISIBLE_DEVICES")
            if visible:
                idx = visible.split(",")[idx].strip()
            r = subprocess.run(["nvidia-smi", f"--id={idx}", "--query-gpu=utilization.gpu",
                                "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=5)
            return float(r.stdout.strip().splitlines()[0]) if r.returncode == 0 and r.stdout.strip() else None
        return float(torch.cuda.utilization(self.device))

    def _loop(self):
        while not self._stop.wait(self.interval):
            try:
                v = self._read()
            except Exception:
                v = None
            if v is not None:
                self.samples.append(v)

    def __enter__(self):
        if self.source:
            self._thread = threading.Thread(target=self._loop, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        self._stop.set()
        if self._thread:
            self._thread.join(timeout=10)

    def summary(self) -> dict | None:
        if not self.source:
            return None
        s = self.samples
        return {"source": self.source, "mean_percent": float(np.mean(s)) if s else None,
                "max_percent": float(np.max(s)) if s else None, "samples": len(s)}


# ----------------------------------------------------------------------------------------------------------------
# Data

@dataclass
class Split:
    """One split as tensors: uint8 clips (on CPU or the GPU) and labels, plus ids for the metrics."""
    clips: torch.Tensor
    features: torch.Tensor
    prior_rules: torch.Tensor
    posterior_rules: torch.Tensor
    surprising: torch.Tensor
    pair_ids: list
    ids: list

    def __len__(self):
        return len(self.ids)

    def subset(self, mask: torch.Tensor) -> "Split":
        idx = torch.nonzero(mask, as_tuple=False)[:, 0]
        return Split(self.clips[idx.to(self.clips.device)], self.features[idx], self.prior_rules[idx],
                     self.posterior_rules[idx], self.surprising[idx], [self.pair_ids[i] for i in idx.tolist()],
                     [self.ids[i] for i in idx.tolist()])


def load_split(ds: AVoEDataset, progress: bool = True, decode: bool = True) -> Split:
    clips = (ds.stacked(progress=progress, workers=min(8, os.cpu_count() or 1)) if decode
             else torch.empty((len(ds), 0), dtype=torch.uint8))
    return Split(clips, ds.features, ds.prior_rules, ds.posterior_rules, ds.surprising, ds.pair_ids, ds.ids)


def load_data(root, category: str, size: int = 112, n_frames: int | None = None, cache_dir="auto",
              progress: bool = True, limit: int | None = None, decode: bool = True) -> dict[str, Split]:
    """train / validation / test splits of one category. ``limit`` keeps the first N trials (pairs) per split;
    ``decode=False`` reads labels only (the random baseline)."""
    out = {}
    frames = n_frames
    for split in ("train", "validation", "test"):
        ds = AVoEDataset(root, category, split, size=size, n_frames=frames, cache_dir=cache_dir)
        if limit is not None:
            keep, order = [], {}
            for r in ds.records:
                order.setdefault(r.pair_id or r.id, len(order))
                if order[r.pair_id or r.id] < limit:
                    keep.append(r)
            ds = AVoEDataset(root, category, split, size=size, n_frames=frames, cache_dir=cache_dir, records=keep)
        if frames is None and len(ds):
            frames = ds.n_frames
        out[split] = load_split(ds, progress, decode) if len(ds) else None
    return out


# ----------------------------------------------------------------------------------------------------------------
# One training run

LABEL_KEYS = ("features", "prior_rules", "posterior_rules", "surprising")


def _to_input(clips_uint8: torch.Tensor) -> torch.Tensor:
    x = clips_uint8.float().div_(255.0)
    if x.is_cuda:   # cuDNN's fastest 3D convolutions in bf16 are channels-last
        x = x.contiguous(memory_format=torch.channels_last_3d)
    return x


def _atomic_save(obj, path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


class Runner:
    """Holds the network, the decision trees and the data of one (model, category, seed)."""

    def __init__(self, cfg: TrainConfig, data: dict[str, Split], out_dir: Path | None):
        self.cfg = cfg.resolved()
        self.data = data
        self.out_dir = Path(out_dir) if out_dir else None
        self.device = pick_device(self.cfg.device)
        self.amp = self.cfg.amp and self.device.type == "cuda"
        self.net: BaselineNet | None = None
        self.trees: PhysicalReasoning | None = None
        self.embeddings: dict[str, torch.Tensor] = {}
        self.info: dict = {}

    # -- setup ---------------------------------------------------------------------------------------------------
    def build(self):
        cfg = self.cfg
        set_seed(cfg.seed)
        if cfg.model == "random":
            return
        backbone = build_backbone(cfg.backbone, cfg.width)
        if cfg.pretrained:
            self.info["pretrained"] = load_pretrained(backbone, cfg.pretrained)
        self.net = BaselineNet(cfg.model, backbone).to(self.device)
        if self.device.type == "cuda":
            self.net = self.net.to(memory_format=torch.channels_last_3d)
        if cfg.freeze_backbone:
            freeze(self.net.backbone)
        if self.device.type == "cuda":
            torch.backends.cudnn.benchmark = True
        if cfg.model == "ofpr":
            tr = self.data["train"]
            exp = tr.surprising == 0
            self.trees = PhysicalReasoning(prefer=cfg.tree_backend, random_state=cfg.seed).fit(
                tr.features[exp].numpy(), tr.prior_rules[exp].numpy(), tr.posterior_rules[exp].numpy())
            self.info["tree_backend"] = self.trees.backend

    def _place_data(self):
        """Move the uint8 clips to the GPU when they fit comfortably (data_on_gpu auto/yes)."""
        if self.device.type != "cuda" or self.cfg.data_on_gpu == "no":
            return
        need = sum(s.clips.numel() for s in self.data.values() if s is not None)
        free, _ = torch.cuda.mem_get_info(self.device)
        if self.cfg.data_on_gpu == "yes" or need < 0.4 * free:
            for s in self.data.values():
                if s is not None and s.clips.device != self.device:
                    s.clips = s.clips.to(self.device)
            self.info["data_on_gpu"] = True
        else:
            self.info["data_on_gpu"] = False

    def _optimizer(self):
        params = [p for p in self.net.parameters() if p.requires_grad]
        if self.cfg.optimizer == "adam":
            return torch.optim.Adam(params, lr=self.cfg.lr)
        if self.cfg.optimizer == "sgd":
            return torch.optim.SGD(params, lr=self.cfg.lr, momentum=0.9)
        raise ValueError(f"unknown optimizer {self.cfg.optimizer!r}")

    def _autocast(self):
        return torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=self.amp)

    @torch.no_grad()
    def _embed_all(self):
        """Frozen backbone: its output for every clip, computed once."""
        bs = max(self.cfg.batch_size, 16)
        for name, split in self.data.items():
            if split is None:
                continue
            outs = []
            for start in range(0, len(split), bs):
                x = _to_input(split.clips[start:start + bs].to(self.device, non_blocking=True))
                with self._autocast():
                    outs.append(self.net.backbone(x).float())
            self.embeddings[name] = torch.cat(outs)

    # -- batches -------------------------------------------------------------------------------------------------
    def _labels_to_device(self):
        """Labels live on the device, so a training step never copies from pageable host memory (which would
        synchronise the stream and stall the CPU's run-ahead every step)."""
        self.dev_labels = {name: {k: getattr(s, k).to(self.device) for k in LABEL_KEYS}
                           for name, s in self.data.items() if s is not None}

    def _batch(self, split_name: str, idx: torch.Tensor, idx_dev: torch.Tensor) -> dict[str, torch.Tensor]:
        """Labels (and clips unless the backbone is frozen) of the videos ``idx`` (CPU) / ``idx_dev`` (device)."""
        split = self.data[split_name]
        b = {k: v[idx_dev] for k, v in self.dev_labels[split_name].items()}
        if not self.cfg.freeze_backbone:
            if split.clips.device == self.device:
                b["clips"] = split.clips[idx_dev]
            else:
                c = split.clips[idx]
                if self.device.type == "cuda":
                    c = c.pin_memory()
                b["clips"] = c.to(self.device, non_blocking=True)
        return b

    # -- forward / scores ----------------------------------------------------------------------------------------
    def _forward(self, split_name: str, idx_dev: torch.Tensor, batch: dict):
        with self._autocast():
            if self.cfg.freeze_backbone:
                return self.net.forward_embedding(self.embeddings[split_name][idx_dev])
            return self.net(_to_input(batch["clips"]))

    @torch.no_grad()
    def scores(self, split_name: str) -> np.ndarray:
        """Surprise score of every video of a split (1 = surprising)."""
        split = self.data[split_name]
        cfg = self.cfg
        if cfg.model == "random":
            offset = {"train": 0, "validation": 1, "test": 2}[split_name]
            return random_scores(len(split), cfg.seed * 1000 + 10 * L.CATEGORIES.index(cfg.category) + offset).numpy()
        self.net.eval()
        bs = max(cfg.batch_size, 16)
        out_scores = []
        for start in range(0, len(split), bs):
            idx = torch.arange(start, min(start + bs, len(split)))
            idx_dev = idx.to(self.device)
            batch = self._batch(split_name, idx, idx_dev)
            out = self._forward(split_name, idx_dev, batch)
            observed = split.posterior_rules[idx].numpy()
            if cfg.model == "ofpr":
                feats = predicted_features(out).cpu().numpy()
                out_scores.append(self.trees.surprise(feats, observed))
            elif cfg.model == "of":
                pred = predicted_posteriors(out).cpu().numpy()
                out_scores.append((pred != observed).any(1).astype(np.float64))
            else:
                out_scores.append(torch.sigmoid(out["surprise"][:, 0]).double().cpu().numpy())
        return np.concatenate(out_scores) if out_scores else np.zeros(0)

    def evaluate(self, split_name: str) -> dict:
        split = self.data[split_name]
        s = self.scores(split_name)
        return all_metrics(s, split.surprising.numpy(), split.pair_ids)

    # -- training ------------------------------------------------------------------------------------------------
    def train(self) -> dict:
        """Train (resuming from last.pt when there), pick the best epoch on validation, test it.
        Returns the metrics that metrics.json holds."""
        cfg = self.cfg
        self.build()
        out = self.out_dir
        if out:
            out.mkdir(parents=True, exist_ok=True)
        if cfg.model == "random":
            m = {"test": self.evaluate("test"), "validation": self.evaluate("validation")
                 if self.data.get("validation") is not None else None}
            return self._finish(m, history=[], throughput=None, gpu=None)

        self._place_data()
        self._labels_to_device()
        train = self.data["train"]
        if cfg.train_on == "expected":
            keep = train.surprising == 0
        else:
            keep = torch.ones(len(train), dtype=torch.bool)
        train_idx_all = torch.nonzero(keep, as_tuple=False)[:, 0]
        if len(train_idx_all) == 0:
            raise ValueError("no training videos")
        if cfg.model == "direct" and int(train.surprising[train_idx_all].sum()) == 0:
            self.info["warning"] = "direct model trained without surprising videos: it can only learn 'expected'"

        opt = self._optimizer()
        start_epoch, best, history = 0, None, []
        best_state = None
        last = out / "last.pt" if out else None
        if last and last.is_file():
            ck = torch.load(last, map_location=self.device, weights_only=False)
            self.net.load_state_dict(ck["net"])
            opt.load_state_dict(ck["optimizer"])
            start_epoch, best, history = ck["epoch"] + 1, ck["best"], ck["history"]
            torch.set_rng_state(ck["rng"].cpu())
            if out and (out / "best.pt").is_file():
                best_state = torch.load(out / "best.pt", map_location="cpu", weights_only=False)
            self.info["resumed_from_epoch"] = start_epoch
        if cfg.freeze_backbone:
            t0 = time.perf_counter()
            self._embed_all()
            if self.device.type == "cuda":
                torch.cuda.synchronize(self.device)
            n = sum(len(s) for s in self.data.values() if s is not None)
            self.info["embedding_clips_per_s"] = n / max(time.perf_counter() - t0, 1e-9)

        has_val = self.data.get("validation") is not None and len(self.data["validation"]) > 0
        fed, train_time = 0, 0.0
        last_save = time.perf_counter()
        monitor = GpuMonitor(self.device)
        bar = None
        if cfg.progress and start_epoch < cfg.epochs:
            from tqdm import tqdm
            bar = tqdm(total=(cfg.epochs - start_epoch) * math.ceil(len(train_idx_all) / cfg.batch_size),
                       desc=f"{cfg.model} {cfg.category} seed {cfg.seed}", unit="step", leave=False)
        with monitor:
            for epoch in range(start_epoch, cfg.epochs):
                self.net.train()
                if cfg.freeze_backbone:
                    self.net.backbone.eval()
                only = cfg.category if epoch >= cfg.warmup_epochs else None
                perm = train_idx_all[torch.randperm(len(train_idx_all))]
                perm_dev = perm.to(self.device)
                losses = []
                if self.device.type == "cuda":
                    torch.cuda.synchronize(self.device)
                t0 = time.perf_counter()
                for start in range(0, len(perm), cfg.batch_size):
                    idx = perm[start:start + cfg.batch_size]
                    if len(idx) < 2 and len(perm) > 1 and not cfg.freeze_backbone:
                        continue     # BatchNorm cannot train on one clip
                    idx_dev = perm_dev[start:start + cfg.batch_size]
                    batch = self._batch("train", idx, idx_dev)
                    out_ = self._forward("train", idx_dev, batch)
                    loss = compute_loss(self.net, out_, batch, only)
                    opt.zero_grad(set_to_none=True)
                    loss.backward()
                    opt.step()
                    losses.append(loss.detach())
                    fed += len(idx)
                    if bar is not None:
                        bar.update(1)
                if self.device.type == "cuda":
                    torch.cuda.synchronize(self.device)
                dt = time.perf_counter() - t0
                train_time += dt
                mean_loss = float(torch.stack(losses).mean()) if losses else float("nan")
                val = self.evaluate("validation") if has_val else None
                rec = {"epoch": epoch, "loss": mean_loss, "epoch_s": dt, "validation": val,
                       "clips_per_s": (len(perm) / dt) if dt > 0 else None}
                history.append(rec)
                if bar is not None:
                    bar.set_postfix(loss=f"{mean_loss:.3f}", val_hit=(f"{val['hit_rate']:.3f}" if val else "-"))
                key = _selection_key(val, epoch, has_val)
                if best is None or key > tuple(best["key"]):
                    best = {"epoch": epoch, "key": list(key)}
                    best_state = {k: v.detach().cpu().clone() for k, v in self.net.state_dict().items()}
                if out:
                    with open(out / "history.jsonl", "a") as fh:
                        fh.write(json.dumps(rec) + "\n")
                    # checkpoints are ~0.5 GB for ResNet-34 + optimizer state: write them every
                    # checkpoint_every_s seconds and after the last epoch, not every (short) epoch
                    if epoch == cfg.epochs - 1 or time.perf_counter() - last_save >= cfg.checkpoint_every_s:
                        if best_state is not None:
                            _atomic_save(best_state, out / "best.pt")
                        _atomic_save({"net": self.net.state_dict(), "optimizer": opt.state_dict(), "epoch": epoch,
                                      "best": best, "history": history, "rng": torch.get_rng_state(),
                                      "config": asdict(cfg)}, out / "last.pt")
                        last_save = time.perf_counter()
        if bar is not None:
            bar.close()
        if best_state is not None:
            self.net.load_state_dict(best_state)
        rates = [h["clips_per_s"] for h in history[start_epoch + 1:] if h.get("clips_per_s")]
        throughput = {"clips_fed": fed, "train_seconds": train_time,
                      "clips_per_s": fed / train_time if train_time > 0 else None,
                      # the first epoch of a process includes cuDNN autotuning; the median of the others is the
                      # sustained rate
                      "steady_clips_per_s": float(np.median(rates)) if rates else None,
                      "what": "train clips through the heads (embeddings cached)" if cfg.freeze_backbone
                      else "train clips through backbone + heads"}
        m = {"test": self.evaluate("test"), "validation": self.evaluate("validation") if has_val else None,
             "best_epoch": best["epoch"] if best else None}
        return self._finish(m, history=history, throughput=throughput, gpu=monitor.summary())

    def _finish(self, m: dict, history, throughput, gpu) -> dict:
        cfg = self.cfg
        result = {"model": cfg.model, "category": cfg.category, "seed": cfg.seed, "config": asdict(cfg),
                  "device": str(self.device), "amp_bf16": self.amp, **m, "throughput": throughput,
                  "gpu_utilisation": gpu, "info": self.info, "epochs_run": len(history)}
        if self.device.type == "cuda":
            result["gpu_name"] = torch.cuda.get_device_name(self.device)
            result["gpu_peak_memory_gb"] = torch.cuda.max_memory_allocated(self.device) / 2 ** 30
        if self.out_dir:
            (self.out_dir / "metrics.json").write_text(json.dumps(result, indent=1, default=_json_default))
        return result


def _selection_key(val: dict | None, epoch: int, has_val: bool) -> tuple:
    """Best epoch: highest validation hit rate, ties by AUC (then the later epoch); without validation, the last."""
    if not has_val or val is None:
        return (epoch,)
    h = val["hit_rate"] if not math.isnan(val["hit_rate"]) else -1.0
    a = val["auc"] if not math.isnan(val["auc"]) else -1.0
    return (h, a, epoch)


def _json_default(o):
    if isinstance(o, (np.floating, np.integer)):
        return o.item()
    if isinstance(o, Path):
        return str(o)
    return str(o)


# ----------------------------------------------------------------------------------------------------------------
# Seeds, grid search, tables

def run_seeds(cfg: TrainConfig, data: dict[str, Split], run_dir: Path, seeds: list[int], log=print) -> list[dict]:
    results = []
    for seed in seeds:
        seed_dir = Path(run_dir) / f"{cfg.model}-{cfg.category}" / f"seed{seed}"
        done = seed_dir / "metrics.json"
        if done.is_file():
            log(f"{cfg.model} {cfg.category} seed {seed}: done already ({done})")
            results.append(json.loads(done.read_text()))
            continue
        r = Runner(replace(cfg, seed=seed), data, seed_dir).train()
        t = r["test"]
        tp = r.get("throughput") or {}
        gpu = r.get("gpu_utilisation") or {}
        log(f"{MODEL_TITLES[cfg.model]} {cfg.category} seed {seed}: test hit rate {t['hit_rate']:.3f}, "
            f"relative acc {t['relative_accuracy']:.3f}, AUC {t['auc']:.3f}"
            + (f", {tp.get('steady_clips_per_s') or tp['clips_per_s']:.1f} clips/s" if tp.get("clips_per_s") else "")
            + (f", GPU util {gpu['mean_percent']:.0f}%" if gpu.get("mean_percent") is not None else ""))
        results.append(r)
    return results


def grid_search(cfg: TrainConfig, data: dict[str, Split], run_dir: Path, samples: int = 20, epochs: int = 30,
                seed: int = 0, log=print) -> dict:
    """The supplementary's tuning: ``samples`` random (lr, batch size, optimizer) from GRID, each trained for
    ``epochs`` and scored on validation (hit rate, ties AUC). Returns the best; results in grid.json."""
    combos = [(lr, bs, o) for lr in GRID["lr"] for bs in GRID["batch_size"] for o in GRID["optimizer"]]
    rng = random.Random(seed)
    chosen = rng.sample(combos, min(samples, len(combos)))
    path = Path(run_dir) / f"{cfg.model}-{cfg.category}" / "grid.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    done = json.loads(path.read_text())["trials"] if path.is_file() else []
    have = {(t["lr"], t["batch_size"], t["optimizer"]) for t in done}
    for lr, bs, o in chosen:
        if (lr, bs, o) in have:
            continue
        c = replace(cfg, lr=lr, batch_size=bs, optimizer=o, epochs=epochs, seed=seed)
        r = Runner(c, data, None).train()
        val = r["validation"] or r["test"]
        done.append({"lr": lr, "batch_size": bs, "optimizer": o, "validation_hit_rate": val["hit_rate"],
                     "validation_auc": val["auc"]})
        log(f"grid {cfg.model} {cfg.category}: lr {lr} batch {bs} {o}: val hit rate {val['hit_rate']:.3f}")
        path.write_text(json.dumps({"trials": done}, indent=1))
    key = lambda t: (_nan0(t["validation_hit_rate"]), _nan0(t["validation_auc"]))  # noqa: E731
    best = max(done, key=key)
    path.write_text(json.dumps({"trials": done, "best": best}, indent=1))
    return best


def _nan0(x):
    return -1.0 if x is None or (isinstance(x, float) and math.isnan(x)) else x


COLUMNS = [(c, f"{L.CATEGORY_NAMES[c].capitalize()} ({c})") for c in L.CATEGORIES]


def collect_results(run_dir: Path) -> dict:
    """{model: {category: {seed: metrics}}} from every finished seed under run_dir."""
    res: dict = {}
    for f in sorted(Path(run_dir).glob("*-*/seed*/metrics.json")):
        m = json.loads(f.read_text())
        res.setdefault(m["model"], {}).setdefault(m["category"], {})[int(m["seed"])] = m
    return res


def _fmt(x) -> str:
    return "-" if x is None or (isinstance(x, float) and math.isnan(x)) else f"{x:.2f}"


def write_tables(run_dir: Path) -> tuple[str, dict]:
    """table4.md / table4.json in RUN_DIR: per model, hit rate per seed and category (supplementary Table 4
    layout), its mean beside the published mean, then every metric as mean ± sd over seeds, and throughput."""
    res = collect_results(run_dir)
    lines, js = [], {"models": {}}
    order = [m for m in ("ofpr", "of", "direct", "random") if m in res]
    for model in order:
        per = res[model]
        seeds = sorted({s for c in per.values() for s in c})
        lines += [f"**{MODEL_TITLES[model]} Hit Rate**", "",
                  "| Seed | " + " | ".join(t for _, t in COLUMNS) + " |",
                  "|---" * (len(COLUMNS) + 1) + "|"]
        for s in seeds:
            lines.append(f"| {s} | " + " | ".join(
                _fmt(per.get(c, {}).get(s, {}).get("test", {}).get("hit_rate")) for c, _ in COLUMNS) + " |")
        means = {}
        for c, _ in COLUMNS:
            vals = [v["test"]["hit_rate"] for v in per.get(c, {}).values()
                    if not math.isnan(v["test"]["hit_rate"])]
            means[c] = float(np.mean(vals)) if vals else None
        lines.append("| **Mean** | " + " | ".join(_fmt(means[c]) for c, _ in COLUMNS) + " |")
        if model in PUBLISHED_HIT_RATE:
            pub = {c: float(np.mean(v)) for c, v in PUBLISHED_HIT_RATE[model].items()}
            lines.append("| Published mean (Table 4) | " + " | ".join(_fmt(pub[c]) for c, _ in COLUMNS) + " |")
        lines.append("")
        js["models"][model] = {"title": MODEL_TITLES[model], "hit_rate_mean": means, "per_category": {}}
        for c, _ in COLUMNS:
            if c not in per:
                continue
            entry = {}
            for metric in ("hit_rate", "relative_accuracy", "absolute_accuracy", "auc"):
                vals = [v["test"][metric] for v in per[c].values()]
                entry[metric] = {"per_seed": {str(s): per[c][s]["test"][metric] for s in sorted(per[c])},
                                 "mean": float(np.nanmean(vals)) if not all(map(math.isnan, vals)) else None,
                                 "sd": float(np.nanstd(vals)) if not all(map(math.isnan, vals)) else None}
            tps = [v["throughput"].get("steady_clips_per_s") or v["throughput"]["clips_per_s"]
                   for v in per[c].values() if v.get("throughput") and v["throughput"].get("clips_per_s")]
            gpus = [v["gpu_utilisation"]["mean_percent"] for v in per[c].values()
                    if v.get("gpu_utilisation") and v["gpu_utilisation"].get("mean_percent") is not None]
            entry["clips_per_s"] = float(np.mean(tps)) if tps else None
            entry["gpu_utilisation_percent"] = float(np.mean(gpus)) if gpus else None
            entry["n_test_pairs"] = [v["test"]["n_pairs"] for v in per[c].values()][0]
            any_run = next(iter(per[c].values()))
            entry["device"] = any_run.get("gpu_name") or any_run.get("device")
            js["models"][model]["per_category"][c] = entry
    if order:
        lines += ["**All metrics on the test split (mean ± sd over seeds)**", "",
                  "| Model | Category | Seeds | Hit rate | Relative acc. | Absolute acc. | AUC | Test pairs | "
                  "Clips/s | GPU util. |", "|---" * 10 + "|"]
        for model in order:
            for c, title in COLUMNS:
                e = js["models"][model]["per_category"].get(c)
                if not e:
                    continue
                ms = lambda k: (f"{e[k]['mean']:.3f} ± {e[k]['sd']:.3f}" if e[k]["mean"] is not None else "-")  # noqa
                lines.append(f"| {MODEL_TITLES[model]} | {title} | {len(e['hit_rate']['per_seed'])} | "
                             f"{ms('hit_rate')} | {ms('relative_accuracy')} | {ms('absolute_accuracy')} | "
                             f"{ms('auc')} | {e['n_test_pairs']} | "
                             f"{_fmt1(e['clips_per_s'])} | "
                             f"{_fmt1(e['gpu_utilisation_percent'], '%')} |")
        lines.append("")
    text = "\n".join(lines) if lines else "(no finished runs)\n"
    Path(run_dir).mkdir(parents=True, exist_ok=True)
    (Path(run_dir) / "table4.md").write_text(text)
    (Path(run_dir) / "table4.json").write_text(json.dumps(js, indent=1, default=_json_default))
    return text, js


def _fmt1(x, unit=""):
    return "-" if x is None else f"{x:.1f}{unit}"
