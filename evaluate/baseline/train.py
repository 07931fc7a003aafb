"""Training and testing one AVoE baseline run (one model, one category, one seed): ``SeedTrainer``.

Several seeds and the hyperparameter search are in experiments.py, the result tables in tables.py, the published
numbers in published.py.

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
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np
import torch

from voebench.contract import avoe_labels as L

from .augment import Augment, augment_clips
from .backbone import build_backbone, freeze, load_pretrained
from .gpu_monitor import GpuMonitor
from .metrics import all_metrics
from .models import BaselineNet, compute_loss, predicted_features, predicted_posteriors, random_scores
from .published import TUNED
from .splits import Split, Splits
from .trees import PhysicalReasoning


@dataclass
class TrainConfig:
    model: str = "ofpr"
    category: str = "A"
    lr: float | None = None  # None: Table 3 for the category
    batch_size: int | None = None
    optimizer: str | None = None  # "adam" or "sgd" (momentum 0.9)
    epochs: int = 30
    seed: int = 1
    backbone: str = "resnet34"
    width: int = 64
    pretrained: str | None = None
    freeze_backbone: bool = False
    warmup_epochs: int = 10  # then only the category's relevant heads enter the loss
    train_on: str | None = None  # "expected" / "all"; None: expected for ofpr/of, all for direct
    augment: bool = False  # shift + brightness/contrast per training clip, on the device (augment.py)
    device: str = "auto"
    amp: bool = True  # bf16 autocast on CUDA
    data_on_gpu: str = "auto"  # keep the uint8 clips on the GPU: auto / yes / no
    tree_backend: str = "auto"  # "auto" / "sklearn" / "numpy"
    progress: bool = True
    checkpoint_every_s: float = 120.0
    extra: dict = field(default_factory=dict)

    def resolved(self) -> TrainConfig:
        tuned = TUNED[self.category]
        return replace(
            self,
            lr=self.lr if self.lr is not None else tuned["lr"],
            batch_size=self.batch_size if self.batch_size is not None else tuned["batch_size"],
            optimizer=(self.optimizer or tuned["optimizer"]).lower(),
            train_on=self.train_on or ("all" if self.model == "direct" else "expected"),
        )


def pick_device(name: str = "auto") -> torch.device:
    dev = torch.device(("cuda" if torch.cuda.is_available() else "cpu") if name == "auto" else name)
    if dev.type == "cuda" and dev.index is None:  # "cuda" -> "cuda:N", so device comparisons hold
        dev = torch.device("cuda", torch.cuda.current_device())
    return dev


def set_seed(seed: int) -> None:
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)


# ----------------------------------------------------------------------------------------------------------------
# One training run

LABEL_KEYS = ("features", "prior_rules", "posterior_rules", "surprising")


def _to_input(clips_uint8: torch.Tensor, augment: Augment | None = None) -> torch.Tensor:
    x = clips_uint8.float().div_(255.0)
    if augment is not None:  # on the clips' device: the GPU in training, so no CPU touches the batch
        x = augment_clips(x, augment)
    if x.is_cuda:  # cuDNN's fastest 3D convolutions in bf16 are channels-last
        x = x.contiguous(memory_format=torch.channels_last_3d)
    return x


def _atomic_save(obj, path: Path) -> None:
    tmp = path.with_suffix(".tmp")
    torch.save(obj, tmp)
    os.replace(tmp, path)


class SeedTrainer:
    """Trains and tests one (model, category, seed): holds the network, the decision trees and the data."""

    def __init__(self, cfg: TrainConfig, data: Splits, out_dir: Path | None):
        self.cfg = cfg.resolved()
        assert self.cfg.batch_size is not None and self.cfg.lr is not None  # resolved() fills them in
        self.batch_size: int = self.cfg.batch_size
        self.lr: float = self.cfg.lr
        self.data = data
        self.out_dir = Path(out_dir) if out_dir else None
        self.device = pick_device(self.cfg.device)
        self.amp = self.cfg.amp and self.device.type == "cuda"
        self.net: BaselineNet | None = None
        self.trees: PhysicalReasoning | None = None
        self.embeddings: dict[str, torch.Tensor] = {}
        self.info: dict = {}

    @property
    def network(self) -> BaselineNet:
        """The network; every model but "random" has one once build() has run."""
        if self.net is None:
            raise RuntimeError(f"model {self.cfg.model!r}: no network (build() not run, or the random baseline)")
        return self.net

    def split(self, name: str) -> Split:
        """A split that has videos ("train", and "validation"/"test" where they are scored)."""
        split = self.data.get(name)
        if split is None:
            raise ValueError(f"{self.cfg.category}: no {name} videos")
        return split

    def _trees(self) -> PhysicalReasoning:
        if self.trees is None:
            raise RuntimeError("the decision trees exist only for model 'ofpr', after build()")
        return self.trees

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
            freeze(self.network.backbone)
        if self.device.type == "cuda":
            torch.backends.cudnn.benchmark = True
        if cfg.model == "ofpr":
            tr = self.split("train")
            exp = tr.surprising == 0
            self.trees = PhysicalReasoning(prefer=cfg.tree_backend, random_state=cfg.seed).fit(
                tr.features[exp].numpy(), tr.prior_rules[exp].numpy(), tr.posterior_rules[exp].numpy()
            )
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
        params = [p for p in self.network.parameters() if p.requires_grad]
        if self.cfg.optimizer == "adam":
            return torch.optim.Adam(params, lr=self.lr)
        if self.cfg.optimizer == "sgd":
            return torch.optim.SGD(params, lr=self.lr, momentum=0.9)
        raise ValueError(f"unknown optimizer {self.cfg.optimizer!r}")

    def _autocast(self):
        return torch.autocast(device_type="cuda", dtype=torch.bfloat16, enabled=self.amp)

    @torch.no_grad()
    def _embed_all(self):
        """Frozen backbone: its output for every clip, computed once."""
        bs = max(self.batch_size, 16)
        for name, split in self.data.items():
            if split is None:
                continue
            outs = []
            for start in range(0, len(split), bs):
                x = _to_input(split.clips[start : start + bs].to(self.device, non_blocking=True))
                with self._autocast():
                    outs.append(self.network.backbone(x).float())
            self.embeddings[name] = torch.cat(outs)

    # -- batches -------------------------------------------------------------------------------------------------
    def _labels_to_device(self):
        """Labels live on the device, so a training step never copies from pageable host memory (which would
        synchronise the stream and stall the CPU's run-ahead every step)."""
        self.dev_labels = {
            name: {k: getattr(s, k).to(self.device) for k in LABEL_KEYS}
            for name, s in self.data.items()
            if s is not None
        }

    def _batch(self, split_name: str, idx: torch.Tensor, idx_dev: torch.Tensor) -> dict[str, torch.Tensor]:
        """Labels (and clips unless the backbone is frozen) of the videos ``idx`` (CPU) / ``idx_dev`` (device)."""
        split = self.split(split_name)
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
    def _forward(self, split_name: str, idx_dev: torch.Tensor, batch: dict, training: bool = False):
        with self._autocast():
            if self.cfg.freeze_backbone:
                return self.network.forward_embedding(self.embeddings[split_name][idx_dev])
            aug = Augment() if training and self.cfg.augment else None
            return self.network(_to_input(batch["clips"], aug))

    @torch.no_grad()
    def scores(self, split_name: str) -> np.ndarray:
        """Surprise score of every video of a split (1 = surprising)."""
        split = self.split(split_name)
        cfg = self.cfg
        if cfg.model == "random":
            offset = {"train": 0, "validation": 1, "test": 2}[split_name]
            return random_scores(len(split), cfg.seed * 1000 + 10 * L.CATEGORIES.index(cfg.category) + offset).numpy()
        self.network.eval()
        bs = max(self.batch_size, 16)
        out_scores = []
        for start in range(0, len(split), bs):
            idx = torch.arange(start, min(start + bs, len(split)))
            idx_dev = idx.to(self.device)
            batch = self._batch(split_name, idx, idx_dev)
            out = self._forward(split_name, idx_dev, batch)
            observed = split.posterior_rules[idx].numpy()
            if cfg.model == "ofpr":
                feats = predicted_features(out).cpu().numpy()
                out_scores.append(self._trees().surprise(feats, observed))
            elif cfg.model == "of":
                pred = predicted_posteriors(out).cpu().numpy()
                out_scores.append((pred != observed).any(1).astype(np.float64))
            else:
                out_scores.append(torch.sigmoid(out["surprise"][:, 0]).double().cpu().numpy())
        return np.concatenate(out_scores) if out_scores else np.zeros(0)

    def evaluate(self, split_name: str) -> dict:
        split = self.split(split_name)
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
            m = {
                "test": self.evaluate("test"),
                "validation": self.evaluate("validation") if self.data.get("validation") is not None else None,
            }
            return self._finish(m, history=[], throughput=None, gpu=None)

        self._place_data()
        self._labels_to_device()
        train_idx_all = self._training_indices()
        opt = self._optimizer()
        start_epoch, best, history, best_state = self._resume(opt)
        if cfg.freeze_backbone:
            self._cache_embeddings()

        validation = self.data.get("validation")
        has_val = validation is not None and len(validation) > 0
        fed, train_time = 0, 0.0
        last_save = time.perf_counter()
        monitor = GpuMonitor(self.device)
        bar = self._progress_bar(start_epoch, len(train_idx_all))
        with monitor:
            for epoch in range(start_epoch, cfg.epochs):
                mean_loss, dt, n_fed = self._train_epoch(epoch, train_idx_all, opt, bar)
                fed += n_fed
                train_time += dt
                val = self.evaluate("validation") if has_val else None
                rec = {
                    "epoch": epoch,
                    "loss": mean_loss,
                    "epoch_s": dt,
                    "validation": val,
                    "clips_per_s": (len(train_idx_all) / dt) if dt > 0 else None,
                }
                history.append(rec)
                if bar is not None:
                    bar.set_postfix(loss=f"{mean_loss:.3f}", val_hit=(f"{val['hit_rate']:.3f}" if val else "-"))
                key = _selection_key(val, epoch, has_val)
                if best is None or key > tuple(best["key"]):
                    best = {"epoch": epoch, "key": list(key)}
                    best_state = {k: v.detach().cpu().clone() for k, v in self.network.state_dict().items()}
                if out:
                    with open(out / "history.jsonl", "a") as fh:
                        fh.write(json.dumps(rec) + "\n")
                    # checkpoints are ~0.5 GB for ResNet-34 + optimizer state: write them every
                    # checkpoint_every_s seconds and after the last epoch, not every (short) epoch
                    if epoch == cfg.epochs - 1 or time.perf_counter() - last_save >= cfg.checkpoint_every_s:
                        self._checkpoint(out, opt, epoch, best, best_state, history)
                        last_save = time.perf_counter()
        if bar is not None:
            bar.close()
        if best_state is not None:
            self.network.load_state_dict(best_state)
        m = {
            "test": self.evaluate("test"),
            "validation": self.evaluate("validation") if has_val else None,
            "best_epoch": best["epoch"] if best else None,
        }
        throughput = self._throughput(history[start_epoch + 1 :], fed, train_time)
        return self._finish(m, history=history, throughput=throughput, gpu=monitor.summary())

    def _training_indices(self) -> torch.Tensor:
        """Indices of the training videos the model learns from: the expected ones, or all (``train_on``)."""
        train = self.split("train")
        if self.cfg.train_on == "expected":
            keep = train.surprising == 0
        else:
            keep = torch.ones(len(train), dtype=torch.bool)
        idx = torch.nonzero(keep, as_tuple=False)[:, 0]
        if len(idx) == 0:
            raise ValueError("no training videos")
        if self.cfg.model == "direct" and int(train.surprising[idx].sum()) == 0:
            self.info["warning"] = "direct model trained without surprising videos: it can only learn 'expected'"
        return idx

    def _resume(self, opt) -> tuple[int, dict | None, list, dict | None]:
        """(first epoch to run, best-epoch record, history, best weights): from last.pt when there, else fresh."""
        out = self.out_dir
        last = out / "last.pt" if out else None
        if not (last and last.is_file()):
            return 0, None, [], None
        ck = torch.load(last, map_location=self.device, weights_only=False)
        self.network.load_state_dict(ck["net"])
        opt.load_state_dict(ck["optimizer"])
        start_epoch, best, history = ck["epoch"] + 1, ck["best"], ck["history"]
        torch.set_rng_state(ck["rng"].cpu())
        best_state = None
        if out and (out / "best.pt").is_file():
            best_state = torch.load(out / "best.pt", map_location="cpu", weights_only=False)
        self.info["resumed_from_epoch"] = start_epoch
        return start_epoch, best, history, best_state

    def _cache_embeddings(self) -> None:
        """Frozen backbone: embed every clip once, and record how fast that went."""
        t0 = time.perf_counter()
        self._embed_all()
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        n = sum(len(s) for s in self.data.values() if s is not None)
        self.info["embedding_clips_per_s"] = n / max(time.perf_counter() - t0, 1e-9)

    def _progress_bar(self, start_epoch: int, n_train: int):
        cfg = self.cfg
        if not (cfg.progress and start_epoch < cfg.epochs):
            return None
        from tqdm import tqdm  # only when a bar is shown

        return tqdm(
            total=(cfg.epochs - start_epoch) * math.ceil(n_train / self.batch_size),
            desc=f"{cfg.model} {cfg.category} seed {cfg.seed}",
            unit="step",
            leave=False,
        )

    def _train_epoch(self, epoch: int, train_idx_all: torch.Tensor, opt, bar) -> tuple[float, float, int]:
        """One pass over the training videos in a fresh order: (mean loss, seconds, clips fed)."""
        cfg = self.cfg
        self.network.train()
        if cfg.freeze_backbone:
            self.network.backbone.eval()
        only = cfg.category if epoch >= cfg.warmup_epochs else None
        perm = train_idx_all[torch.randperm(len(train_idx_all))]
        perm_dev = perm.to(self.device)
        losses = []
        fed = 0
        if self.device.type == "cuda":
            torch.cuda.synchronize(self.device)
        t0 = time.perf_counter()
        for start in range(0, len(perm), self.batch_size):
            idx = perm[start : start + self.batch_size]
            if len(idx) < 2 and len(perm) > 1 and not cfg.freeze_backbone:
                continue  # BatchNorm cannot train on one clip
            idx_dev = perm_dev[start : start + self.batch_size]
            batch = self._batch("train", idx, idx_dev)
            out_ = self._forward("train", idx_dev, batch, training=True)
            loss = compute_loss(self.network, out_, batch, only)
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
        mean_loss = float(torch.stack(losses).mean()) if losses else float("nan")
        return mean_loss, dt, fed

    def _checkpoint(self, out: Path, opt, epoch: int, best, best_state, history) -> None:
        if best_state is not None:
            _atomic_save(best_state, out / "best.pt")
        _atomic_save(
            {
                "net": self.network.state_dict(),
                "optimizer": opt.state_dict(),
                "epoch": epoch,
                "best": best,
                "history": history,
                "rng": torch.get_rng_state(),
                "config": asdict(self.cfg),
            },
            out / "last.pt",
        )

    def _throughput(self, later_epochs: list[dict], fed: int, train_time: float) -> dict:
        rates = [h["clips_per_s"] for h in later_epochs if h.get("clips_per_s")]
        return {
            "clips_fed": fed,
            "train_seconds": train_time,
            "clips_per_s": fed / train_time if train_time > 0 else None,
            # the first epoch of a process includes cuDNN autotuning; the median of the others is the
            # sustained rate
            "steady_clips_per_s": float(np.median(rates)) if rates else None,
            "what": "train clips through the heads (embeddings cached)"
            if self.cfg.freeze_backbone
            else "train clips through backbone + heads",
        }

    def _finish(self, m: dict, history, throughput, gpu) -> dict:
        cfg = self.cfg
        result = {
            "model": cfg.model,
            "category": cfg.category,
            "seed": cfg.seed,
            "config": asdict(cfg),
            "device": str(self.device),
            "amp_bf16": self.amp,
            **m,
            "throughput": throughput,
            "gpu_utilisation": gpu,
            "info": self.info,
            "epochs_run": len(history),
        }
        if self.device.type == "cuda":
            result["gpu_name"] = torch.cuda.get_device_name(self.device)
            result["gpu_peak_memory_gb"] = torch.cuda.max_memory_allocated(self.device) / 2**30
        if self.out_dir:
            (self.out_dir / "metrics.json").write_text(json.dumps(result, indent=1, default=json_default))
        return result


def _selection_key(val: dict | None, epoch: int, has_val: bool) -> tuple:
    """Best epoch: highest validation hit rate, ties by AUC (then the later epoch); without validation, the last."""
    if not has_val or val is None:
        return (epoch,)
    h = val["hit_rate"] if not math.isnan(val["hit_rate"]) else -1.0
    a = val["auc"] if not math.isnan(val["auc"]) else -1.0
    return (h, a, epoch)


def json_default(o):
    """JSON for numpy scalars and paths (metrics.json, table4.json)."""
    if isinstance(o, (np.floating, np.integer)):
        return o.item()
    if isinstance(o, Path):
        return str(o)
    return str(o)
