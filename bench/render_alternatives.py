"""Costs that were measured and not taken (docs/performance.md, third pass), each against today's form in one run:

  passes   one batch of a video's distinct states drawn by Blender's RGB pass with and without the compositor's
           depth output, and by the segmentation pass as BMP (today) or as a multilayer EXR that would carry
           depth too (RGBA + Z, no compositor): could depth and segmentation come out of one pass?
  encode   x264 presets on a rendered video's 500 frames: ffmpeg's CPU, the file size and PSNR

    LP_NUM_THREADS=1 .venv/bin/python bench/render_alternatives.py passes --suite avoe --test C1 --size 960x540
    .venv/bin/python bench/render_alternatives.py encode --mp4 SOME.mp4   # e.g. a grasp-l2/t15 video

CPU seconds of this process (Blender draws in it; llvmpipe's thread included) or of the ffmpeg child.
"""

from __future__ import annotations

import argparse
import glob
import os
import resource
import time

import numpy as np


def cmd_passes(args):
    os.environ.setdefault("LP_NUM_THREADS", "1")
    from voebench.generator.blender import render
    from voebench.generator.runner import RunConfig, effective_space, first_trial
    from voebench.generator.runner import suite_for as _suite
    from voebench.generator.trial import draw

    w, h = (int(x) for x in args.size.split("x"))
    seconds, fps = (50 / 24, 24.0) if args.suite == "avoe" else (10.0, 50.0)
    cfg = RunConfig(out="/tmp", suite=args.suite, tests=[args.test], trials=8, seconds=seconds, fps=fps)
    suite, space = _suite(args.suite), effective_space(_suite(args.suite), args.test, {})
    trial = next(t for t in (first_trial(suite, args.test, space, cfg, i) for i in range(8)) if t.conditions)
    scene = suite.make_scene(trial.jobs[0], draw(suite, space, trial, 0), cfg.timing)
    r = render.Renderer(scene, render.RenderSettings(w, h))
    firsts = scene.first_frames()
    ts = firsts[: args.states]

    def rgb_today():
        r._rgb_mode()

    def rgb_no_compositor():
        r._rgb_mode()
        r.bscene.render.use_compositing = False

    def seg_today():
        r._seg_mode()
        r.bscene.render.image_settings.media_type = "IMAGE"
        r.bscene.render.image_settings.file_format = "BMP"

    def seg_multilayer_exr():
        r._seg_mode()
        s = r.bscene.render.image_settings
        s.media_type = "MULTI_LAYER_IMAGE"
        s.file_format = "OPEN_EXR_MULTILAYER"
        s.exr_codec = "NONE"
        s.color_depth = "32"

    forms = {
        "RGB pass + compositor depth EXR (today)": (rgb_today, "rgb_"),
        "RGB pass, no compositor": (rgb_no_compositor, "rgb_"),
        "segmentation pass, BMP (today)": (seg_today, "seg_"),
        "segmentation pass, multilayer EXR with depth": (seg_multilayer_exr, "seg_"),
    }
    rgb_today()
    r._animate(ts, "rgb_")  # shaders compiled: no form's cost
    cpu = {k: [] for k in forms}
    for _ in range(args.repeats):
        for label, (setup, prefix) in forms.items():
            setup()
            c0 = time.process_time()
            r._animate(ts, prefix)
            cpu[label].append(1000 * (time.process_time() - c0) / len(ts))
            for f in glob.glob(os.path.join(r.tmp, "*")):
                os.remove(f)
    r.close()
    print(f"{args.suite}/{args.test} {w}x{h}, {len(ts)} states per call, load {os.getloadavg()[0]:.1f}")
    for label, v in cpu.items():
        print(f"  {label:48s} CPU ms per state: min {min(v):6.1f}, each {', '.join(f'{x:.1f}' for x in v)}")


def cmd_encode(args):
    import imageio_ffmpeg

    from voebench.generator.io.video import read_video

    frames = read_video(args.mp4)
    h, w = frames.shape[1:3]
    print(f"{args.mp4}: {len(frames)} frames {w}x{h}, crf 18, one thread")
    for preset in args.presets:
        out = f"/dev/shm/vb-encode-{os.getpid()}-{preset}.mp4"
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        g = imageio_ffmpeg.write_frames(
            out,
            (w, h),
            fps=50,
            codec="libx264",
            pix_fmt_out="yuv420p",
            macro_block_size=2,
            quality=None,
            output_params=["-preset", preset, "-crf", "18", "-threads", "1", "-f", "mp4"],
            ffmpeg_log_level="error",
        )
        g.send(None)
        for f in frames:
            g.send(np.ascontiguousarray(f))
        g.close()
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        child = r1.ru_utime + r1.ru_stime - r0.ru_utime - r0.ru_stime
        back = read_video(out).astype(float)
        psnr = 10 * np.log10(255**2 / max(np.mean((back - frames) ** 2), 1e-12))
        size = os.path.getsize(out)
        os.remove(out)
        print(f"  {preset:10s} ffmpeg CPU {child:.2f} s, {size} bytes, PSNR against its input {psnr:.1f} dB")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    p = sub.add_parser("passes")
    p.add_argument("--suite", default="avoe")
    p.add_argument("--test", default="C1")
    p.add_argument("--size", default="960x540")
    p.add_argument("--states", type=int, default=24)
    p.add_argument("--repeats", type=int, default=3)
    p = sub.add_parser("encode")
    p.add_argument("--mp4", required=True)
    p.add_argument("--presets", nargs="+", default=["veryfast", "superfast", "ultrafast", "veryfast"])
    args = ap.parse_args()
    {"passes": cmd_passes, "encode": cmd_encode}[args.command](args)


if __name__ == "__main__":
    main()
