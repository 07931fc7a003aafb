"""Anti-aliasing quality: the mean absolute error of Blender's FXAA, the aliased render and the numpy FXAA
against a 4x4 supersampled render, on held-out scenes, and side-by-side crops of the worst frames for docs/img/."""

from __future__ import annotations

import os

import numpy as np

from .common import RESULTS, ROOT, log, machine, save
from .paths import PATHS


def srgb_to_linear(c):
    c = np.asarray(c, np.float64) / 255.0
    return np.where(c <= 0.04045, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)


def linear_to_srgb(c):
    return 255.0 * np.where(c <= 0.0031308, c * 12.92, 1.055 * np.maximum(c, 0) ** (1 / 2.4) - 0.055)


QUALITY_SCENES = [  # (suite, test, trial index); the filter's two constants were tuned on index 0 of
    # grasp-l1/shape, grasp-l2/t02 and grasp-l2/t15 (frame at the middle of a 2 s, 10 fps clip): held out here
    ("grasp-l1", "directionality", 1),
    ("grasp-l1", "shape", 2),
    ("grasp-l2", "t02_unchangeableness_color", 1),
    ("grasp-l2", "t08_inertia_bounce", 1),
    ("grasp-l2", "t12_continuity_tray", 1),
    ("grasp-l2", "t15_support_pin", 1),
    ("grasp-l2", "t16_inertia_corner", 1),
    ("avoe", "B2", 1),
]


def cmd_quality(args):
    """Blender's FXAA (today), the aliased render and numpy FXAA (new) against a 4x4 supersampled render (an
    aliased render at 4x the width and height, averaged over each 4x4 block in linear light)."""
    from voebench.generator import antialias
    from voebench.generator.blender import render
    from voebench.generator.runner import effective_space
    from voebench.generator.runner import suite_for as _suite
    from voebench.generator.suite import Job

    W, H = 320, 240
    rows, crops = [], []
    real_fxaa = render.fxaa
    for suite_name, test, index in QUALITY_SCENES:
        suite = _suite(suite_name)
        seed, p = suite.sample(test, effective_space(suite, test, {}), 0, index)
        conds = suite.conditions(test, p, {"seed": seed})
        if not conds:
            continue
        job = Job(suite_name, test, index, conds[0], seed, None)
        scene = suite.make_scene(job, p, suite.default_timing)
        frames = [scene.n_frames // 4, scene.n_frames // 2, 3 * scene.n_frames // 4]
        imgs = {}
        for name, (w, h, kw) in {
            "today": (W, H, PATHS["today"]),
            "aliased": (W, H, {}),
            "reference": (4 * W, 4 * H, {}),
        }.items():
            r = render.Renderer(scene, render.RenderSettings(w, h, **kw))
            render.fxaa = lambda rgb: rgb.copy()  # the aliased render itself; new = antialias.fxaa of it
            try:
                imgs[name] = [r.render_state(t, ("rgb",))[0] for t in frames]
            finally:
                render.fxaa = real_fxaa
                r.close()
        for k, t in enumerate(frames):
            ref = linear_to_srgb(srgb_to_linear(imgs["reference"][k]).reshape(H, 4, W, 4, 3).mean((1, 3)))
            aliased = imgs["aliased"][k]
            new = antialias.fxaa(aliased)
            err = {
                name: np.abs(img.astype(np.float64) - ref)
                for name, img in (("today", imgs["today"][k]), ("aliased", aliased), ("new", new))
            }
            edges = err["aliased"].max(-1) > 8  # pixels where aliasing shows
            row = {"video": f"{suite_name}/{test}/{index:05d}-{conds[0]}", "frame": t}
            for name, e in err.items():
                row[f"mae_{name}"] = float(e.mean())
                row[f"mae_edges_{name}"] = float(e[edges].mean()) if edges.any() else 0.0
            rows.append(row)
            log(
                f"[quality] {row['video']} frame {t}: MAE today {row['mae_today']:.3f}, "
                f"aliased {row['mae_aliased']:.3f}, new {row['mae_new']:.3f}"
            )
            crops.append(
                (
                    float(err["aliased"].max(-1).sum()),
                    row["video"],
                    t,
                    imgs["today"][k],
                    new,
                    np.clip(np.round(ref), 0, 255).astype(np.uint8),
                    err["aliased"].max(-1),
                )
            )
    summary = {k: float(np.mean([r[k] for r in rows])) for k in rows[0] if k.startswith("mae")}
    summary["new_better_or_equal_frames"] = sum(r["mae_new"] <= r["mae_today"] for r in rows)
    summary["frames"] = len(rows)
    files = write_crops(crops, args.img_dir, args.crops) if args.img_dir else []
    RESULTS["quality"] = {"rows": rows, "summary": summary, "crops": files, "machine": machine()}
    save(args)
    return RESULTS["quality"]


def write_crops(crops, img_dir: str, n: int) -> list:
    """For the n frames with the most aliasing: a 64x48 crop around the worst 16x16 block, magnified 4x
    (nearest), side by side: today (Blender FXAA) | new (numpy FXAA) | 4x supersampled reference."""
    import imageio.v3 as iio

    os.makedirs(img_dir, exist_ok=True)
    files, seen = [], set()
    for _, video, t, today, new, ref, alias_err in sorted(crops, key=lambda c: -c[0]):
        if video in seen:
            continue
        seen.add(video)
        h, w = alias_err.shape
        blocks = alias_err[: h // 16 * 16, : w // 16 * 16].reshape(h // 16, 16, w // 16, 16).sum((1, 3))
        by, bx = np.unravel_index(int(np.argmax(blocks)), blocks.shape)
        y0 = int(np.clip(by * 16 + 8 - 24, 0, h - 48))
        x0 = int(np.clip(bx * 16 + 8 - 32, 0, w - 64))
        tiles = [np.kron(img[y0 : y0 + 48, x0 : x0 + 64], np.ones((4, 4, 1), np.uint8)) for img in (today, new, ref)]
        gap = np.full((tiles[0].shape[0], 6, 3), 255, np.uint8)
        strip = np.concatenate([tiles[0], gap, tiles[1], gap, tiles[2]], axis=1)
        path = os.path.join(img_dir, f"aa-{video.split('/')[1]}-{t}.png")
        iio.imwrite(path, strip)
        files.append({"file": os.path.relpath(path, ROOT), "video": video, "frame": t, "crop_xywh": [x0, y0, 64, 48]})
        if len(files) == n:
            break
    return files
