"""3D ResNet backbones.

``ResNet3D`` follows Hara et al.'s 3D-ResNets-PyTorch (the original's backbone): a 7x7x7 stem with stride (1, 2, 2),
3x3x3 max-pool, four stages of basic blocks with 64/128/256/512 channels (times ``width / 64``), shortcut type B
(1x1x1 conv + BN when the shape changes), global average pool and a linear layer to ``out_dim`` (700, the
Kinetics-700 classes the original's heads read). Parameter names match that repository, so its
``r3d34_K_200ep.pth`` / ``r3d18_K_200ep.pth`` checkpoints load with :func:`load_pretrained`.

``"r3d_18_tv"`` is torchvision's R3D-18 with its fc replaced by one to ``out_dim`` (torchvision weights load too).
Nothing is downloaded: weights come from a local file or the network is trained from scratch.
"""

from __future__ import annotations

from typing import Any

import torch
from torch import nn

DEPTHS = {10: [1, 1, 1, 1], 18: [2, 2, 2, 2], 34: [3, 4, 6, 3]}
BACKBONES = ("resnet10", "resnet18", "resnet34", "r3d_18_tv")


class BasicBlock3D(nn.Module):
    expansion = 1

    def __init__(self, in_planes: int, planes: int, stride: int = 1, downsample: nn.Module | None = None):
        super().__init__()
        self.conv1 = nn.Conv3d(in_planes, planes, 3, stride=stride, padding=1, bias=False)
        self.bn1 = nn.BatchNorm3d(planes)
        self.relu = nn.ReLU(inplace=True)
        self.conv2 = nn.Conv3d(planes, planes, 3, padding=1, bias=False)
        self.bn2 = nn.BatchNorm3d(planes)
        self.downsample = downsample

    def forward(self, x):
        identity = x if self.downsample is None else self.downsample(x)
        out = self.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return self.relu(out + identity)


class ResNet3D(nn.Module):
    def __init__(self, depth: int = 34, width: int = 64, out_dim: int = 700, in_channels: int = 3):
        super().__init__()
        if depth not in DEPTHS:
            raise ValueError(f"depth must be one of {sorted(DEPTHS)}")
        widths = [width, width * 2, width * 4, width * 8]
        self.in_planes = width
        self.conv1 = nn.Conv3d(in_channels, width, kernel_size=7, stride=(1, 2, 2), padding=3, bias=False)
        self.bn1 = nn.BatchNorm3d(width)
        self.relu = nn.ReLU(inplace=True)
        self.maxpool = nn.MaxPool3d(kernel_size=3, stride=2, padding=1)
        self.layer1 = self._stage(widths[0], DEPTHS[depth][0], 1)
        self.layer2 = self._stage(widths[1], DEPTHS[depth][1], 2)
        self.layer3 = self._stage(widths[2], DEPTHS[depth][2], 2)
        self.layer4 = self._stage(widths[3], DEPTHS[depth][3], 2)
        self.avgpool = nn.AdaptiveAvgPool3d(1)
        self.fc = nn.Linear(widths[3], out_dim)
        self.out_dim = out_dim
        for m in self.modules():
            if isinstance(m, nn.Conv3d):
                nn.init.kaiming_normal_(m.weight, mode="fan_out", nonlinearity="relu")
            elif isinstance(m, nn.BatchNorm3d):
                nn.init.ones_(m.weight)
                nn.init.zeros_(m.bias)

    def _stage(self, planes: int, blocks: int, stride: int) -> nn.Sequential:
        downsample = None
        if stride != 1 or self.in_planes != planes:
            downsample = nn.Sequential(
                nn.Conv3d(self.in_planes, planes, 1, stride=stride, bias=False), nn.BatchNorm3d(planes)
            )
        layers = [BasicBlock3D(self.in_planes, planes, stride, downsample)]
        self.in_planes = planes
        layers += [BasicBlock3D(planes, planes) for _ in range(1, blocks)]
        return nn.Sequential(*layers)

    def forward(self, x):
        """x: (B, 3, T, H, W) in [0, 1] -> (B, out_dim)."""
        x = self.maxpool(self.relu(self.bn1(self.conv1(x))))
        x = self.layer4(self.layer3(self.layer2(self.layer1(x))))
        return self.fc(torch.flatten(self.avgpool(x), 1))


def build_backbone(name: str = "resnet34", width: int = 64, out_dim: int = 700) -> nn.Module:
    if name.startswith("resnet") and name[6:].isdigit():
        return ResNet3D(depth=int(name[6:]), width=width, out_dim=out_dim)
    if name == "r3d_18_tv":
        from torchvision.models.video import r3d_18  # torchvision only for this backbone

        net = r3d_18(weights=None)
        net.fc = nn.Linear(net.fc.in_features, out_dim)
        net.out_dim = out_dim
        return net
    raise ValueError(f"unknown backbone {name!r} (one of {', '.join(BACKBONES)})")


def load_pretrained(backbone: nn.Module, path: str) -> dict:
    """Load weights from a local checkpoint (a state dict, or {'state_dict': ...}; 'module.' prefixes dropped).
    Tensors whose shape differs (e.g. an fc to another number of classes) are skipped. Returns what was skipped
    and what is missing, so the caller can report it."""
    ckpt = torch.load(path, map_location="cpu", weights_only=False)
    state: Any = ckpt.get("state_dict", ckpt.get("model", ckpt)) if isinstance(ckpt, dict) else ckpt
    state = {k.removeprefix("module.").removeprefix("backbone."): v for k, v in state.items()}
    own = backbone.state_dict()
    usable = {k: v for k, v in state.items() if k in own and own[k].shape == v.shape}
    skipped = sorted(k for k in state if k not in usable)
    missing = sorted(k for k in own if k not in usable)
    if not usable:
        raise ValueError(f"{path}: no tensor matches the backbone's parameters")
    own.update(usable)
    backbone.load_state_dict(own)
    return {"loaded": len(usable), "skipped": skipped, "missing": missing}


def freeze(module: nn.Module) -> None:
    """No gradients and BatchNorm statistics fixed (call ``module.eval()`` after every ``train()``)."""
    for p in module.parameters():
        p.requires_grad_(False)
    module.eval()
