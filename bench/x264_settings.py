"""Issue 29, eighth step: x264 settings against the writer's, on held frames and moving ones, at equal quality.

    LP_NUM_THREADS=1 taskset -c 1 .venv/bin/python bench/x264_settings.py \
        --json bench/results/issue29-x264-settings.json --txt bench/results/issue29-x264-settings.txt

Each video (`VIDEOS`: a still Level 1 video, three Level 2 violated videos on the dirty path at 640x480 and one on
today's path at 320x240) is rendered once, as `bench/render_dirty.py encode` renders it (`violated_scene`, the
distinct frames kept, the frame sequence as the runner sends it), and converted once to yuv420p by the writer's
own conversion. Then every setting (`SETTINGS`: preset, crf and x264 parameters added to the writer's causal ones,
`-threads 1`) codes every video, `--repeats` times, interleaved (the order of the settings flips from repeat to
repeat): CPU s of ffmpeg alone (the child's rusage; the pipe and ffmpeg's own work included, the same for every
setting). On the still video a one-frame coding per setting gives x264's cost of a held frame, (CPU of 500 frames
- CPU of 1) / 499. Quality, from the first repeat's files decoded by imageio-ffmpeg: PSNR against the lossless
(qp 0) coding of the same yuv420p (the encoder's own loss) and against the RGB frames (what a model sees against
what was rendered), and the file's bytes.

A setting whose bytes equal the writer's on every video is the same coding (x264 makes the same bitstream from the
same decisions): `SAME` lists parameters that `veryfast` already sets, checked that way and not timed.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

import imageio_ffmpeg
import numpy as np
from render.common import children_cpu
from render_dirty import machine, violated_scene

from voebench.generator.io.video import CAUSAL_X264, QP, X264_PARAMS
from voebench.generator.io.yuv420 import rgb_to_yuv420p

#: name: (suite, test, (width, height), render path); GRASP's at 10 s and 50 fps, the suites' default timing
VIDEOS: dict[str, tuple[str, str, tuple[int, int], str]] = {
    "l1-shape 640x480 (still)": ("grasp-l1", "shape", (640, 480), "dirty"),
    "t15 640x480": ("grasp-l2", "t15_support_pin", (640, 480), "dirty"),
    "t08 640x480": ("grasp-l2", "t08_inertia_bounce", (640, 480), "dirty"),
    "t01 640x480": ("grasp-l2", "t01_unchangeableness", (640, 480), "dirty"),
    "t15 320x240": ("grasp-l2", "t15_support_pin", (320, 240), "full"),
    # AVoE's default: 960x540, 50 frames at 24 fps (the timing comes with the video, not from --seconds/--fps)
    "avoe A1 960x540": ("avoe", "A1", (960, 540), "full"),
    "avoe E1 960x540": ("avoe", "E1", (960, 540), "full"),
}
#: the timing of suites other than GRASP's, (seconds, fps)
TIMING = {"avoe": (50 / 24, 24.0)}
#: the writer's setting before the eighth step (the baseline of every ratio; its name kept from the first runs)
WRITER = "veryfast crf18 (the writer's)"
#: the writer's setting since (`VideoWriter`: `QP`, `X264_PARAMS`; checked against them below)
WRITER_NOW = "veryfast qp10 subme=0:weightp=0"
#: name: (preset, rate control: "crf=N" or "qp=N" (constant quantiser), x264 parameters after the causal ones)
SETTINGS: dict[str, tuple[str, str, str]] = {
    WRITER: ("veryfast", "crf=18", ""),
    "veryfast crf18 subme=0": ("veryfast", "crf=18", "subme=0"),
    "veryfast crf17 subme=0": ("veryfast", "crf=17", "subme=0"),
    "veryfast crf18 me=dia": ("veryfast", "crf=18", "me=dia"),
    "veryfast crf18 weightp=0": ("veryfast", "crf=18", "weightp=0"),
    "veryfast crf18 8x8dct=0": ("veryfast", "crf=18", "8x8dct=0"),
    "veryfast crf18 partitions=none": ("veryfast", "crf=18", "partitions=none"),
    "veryfast crf18 aq-mode=0": ("veryfast", "crf=18", "aq-mode=0"),
    "veryfast crf17 subme=0:weightp=0": ("veryfast", "crf=17", "subme=0:weightp=0"),
    "veryfast crf17 subme=0:me=dia": ("veryfast", "crf=17", "subme=0:me=dia"),
    "veryfast crf17 subme=0:partitions=none": ("veryfast", "crf=17", "subme=0:partitions=none"),
    "veryfast crf17 subme=0:me=dia:weightp=0:8x8dct=0:partitions=none": (
        "veryfast",
        "crf=17",
        "subme=0:me=dia:weightp=0:8x8dct=0:partitions=none",
    ),
    "ultrafast crf16": ("ultrafast", "crf=16", ""),
    # constant quantiser: no per-frame cost estimate for the rate control (with weightp=0, no half-size frame)
    "veryfast qp10 subme=0:weightp=0": ("veryfast", "qp=10", "subme=0:weightp=0"),
    "veryfast qp11 subme=0:weightp=0": ("veryfast", "qp=11", "subme=0:weightp=0"),
    "veryfast qp12 subme=0:weightp=0": ("veryfast", "qp=12", "subme=0:weightp=0"),
    "veryfast qp13 subme=0:weightp=0": ("veryfast", "qp=13", "subme=0:weightp=0"),
    "veryfast qp14 subme=0:weightp=0": ("veryfast", "qp=14", "subme=0:weightp=0"),
    "veryfast qp16 subme=0:weightp=0": ("veryfast", "qp=16", "subme=0:weightp=0"),
    "veryfast qp18 subme=0:weightp=0": ("veryfast", "qp=18", "subme=0:weightp=0"),
}
assert SETTINGS[WRITER_NOW] == ("veryfast", f"qp={QP}", X264_PARAMS[1].removeprefix(CAUSAL_X264[1] + ":"))
#: parameters `veryfast` already sets (x264's preset table): the same bytes as the writer's, checked, not timed
SAME: dict[str, tuple[str, str, str]] = {
    "veryfast crf18 ref=1:trellis=0:fast-pskip=1": ("veryfast", "crf=18", "ref=1:trellis=0:fast-pskip=1"),
}


@dataclass
class Video:
    """One video's frames: the distinct RGB frames, the frame sequence (indices into them), their yuv420p."""

    name: str
    width: int
    height: int
    fps: float
    distinct: list[np.ndarray]
    unique: list[int]
    yuv: list[bytes]

    def sequence(self) -> Iterator[bytes]:
        return (self.yuv[u] for u in self.unique)

    def rgb(self) -> Iterator[np.ndarray]:
        return (self.distinct[u] for u in self.unique)


def render(name: str, seconds: float, fps: float) -> Video:
    """Render one of `VIDEOS` once, as `bench/render_dirty.py encode` does (violated video, first trial)."""
    from voebench.generator.blender.render import Renderer, RenderSettings

    suite, test, (w, h), path = VIDEOS[name]
    seconds, fps = TIMING.get(suite, (seconds, fps))
    scene = violated_scene(test, seconds, fps, suite)
    r = Renderer(scene, RenderSettings(w, h, render_path=path))
    distinct: list[np.ndarray] = []
    unique: list[int] = []
    try:
        for fr in r.frames(("rgb",)):
            if fr.rendered:
                distinct.append(np.array(fr.rgb, np.uint8, copy=True))
            unique.append(fr.unique)
    finally:
        r.close()
    return Video(name, w, h, fps, distinct, unique, [rgb_to_yuv420p(f) for f in distinct])


def encode(path: str, v: Video, setting: tuple[str, str, str] | None, frames: Iterable[bytes]) -> float:
    """Code `frames` (yuv420p) into `path` as the writer pipes them, with `setting` (None: lossless, qp 0);
    the CPU s of ffmpeg."""
    params = CAUSAL_X264[1]
    if setting is None:
        rate = ["-preset", "ultrafast", "-qp", "0"]
    else:
        preset, rc, extra = setting
        mode, value = rc.split("=")
        rate = ["-preset", preset, f"-{mode}", value]
        params += f":{extra}" if extra else ""
    c0 = children_cpu()
    gen = imageio_ffmpeg.write_frames(
        path,
        (v.width, v.height),
        pix_fmt_in="yuv420p",
        fps=v.fps,
        codec="libx264",
        pix_fmt_out="yuv420p",
        macro_block_size=2,
        quality=None,
        output_params=[*rate, "-x264-params", params, "-threads", "1", "-f", "mp4"],
        ffmpeg_log_level="error",
    )
    gen.send(None)
    for f in frames:
        gen.send(f)
    gen.close()
    return children_cpu() - c0


def decoded(path: str) -> Iterator[np.ndarray]:
    reader = imageio_ffmpeg.read_frames(path)
    w, h = next(reader)["size"]
    for b in reader:
        yield np.frombuffer(b, np.uint8).reshape(h, w, 3)


def psnr(a: Iterable[np.ndarray], b: Iterable[np.ndarray]) -> tuple[float, int]:
    """PSNR in dB over two frame sequences (summed squared error over every pixel), and the frames compared."""
    se, n, count = 0.0, 0, 0
    for x, y in zip(a, b, strict=True):
        d = (x.astype(np.int32) - y.astype(np.int32)).ravel()
        se += float(np.dot(d, d))
        n += d.size
        count += 1
    return (round(10 * float(np.log10(255**2 * n / se)), 3) if se else float("inf")), count


def quality(v: Video, settings: dict[str, tuple[str, str, str]], tmp: str) -> dict[str, dict]:
    """Bytes and PSNR (against the lossless coding and the RGB frames) of each setting's file for one video."""
    ref_path = os.path.join(tmp, "lossless.mp4")
    encode(ref_path, v, None, v.sequence())
    ref = list(decoded(ref_path))
    os.remove(ref_path)
    out: dict[str, dict] = {}
    path = os.path.join(tmp, "q.mp4")
    for name, setting in settings.items():
        encode(path, v, setting, v.sequence())
        vs_lossless, frames = psnr(decoded(path), ref)
        vs_rgb, _ = psnr(decoded(path), v.rgb())
        out[name] = {
            "bytes": os.path.getsize(path),
            "frames_decoded": frames,
            "psnr_vs_lossless_db": vs_lossless,
            "psnr_vs_rgb_db": vs_rgb,
        }
        os.remove(path)
    return out


def timings(videos: list[Video], names: list[str], repeats: int, tmp: str) -> dict:
    """CPU s of ffmpeg per video and setting, interleaved; on a video of one distinct frame, the cost of a held
    frame from a 1-frame coding beside each 500-frame one."""
    path = os.path.join(tmp, "t.mp4")
    cpu: dict[str, dict[str, list[float]]] = {v.name: {n: [] for n in names} for v in videos}
    held: dict[str, dict[str, list[float]]] = {v.name: {n: [] for n in names} for v in videos if len(v.distinct) == 1}
    loads = []
    for i in range(repeats):
        order = names if i % 2 == 0 else names[::-1]
        for v in videos:
            for n in order:
                cpu[v.name][n].append(round(encode(path, v, SETTINGS[n], v.sequence()), 3))
                if v.name in held:
                    one = encode(path, v, SETTINGS[n], v.yuv[:1])
                    ms = 1000 * (cpu[v.name][n][-1] - one) / (len(v.unique) - 1)
                    held[v.name][n].append(round(ms, 3))
        loads.append(os.getloadavg())
        print(f"repeat {i + 1}/{repeats} done, load {loads[-1]}", flush=True)
    os.remove(path)
    out: dict[str, dict] = {}
    for v in videos:
        row: dict[str, dict] = {}
        for n in names:
            row[n] = {"cpu_s": cpu[v.name][n], "cpu_s_median": round(statistics.median(cpu[v.name][n]), 3)}
            if v.name in held:
                row[n]["held_frame_ms"] = held[v.name][n]
                row[n]["held_frame_ms_median"] = round(statistics.median(held[v.name][n]), 3)
        out[v.name] = row
    return {"videos": out, "loadavg_after_each_repeat": loads}


def table(result: dict) -> str:
    """The results as text: per video, each setting's median CPU s (and its ratio to the writer's), bytes, PSNRs."""
    lines = []
    for vname, rows in result["timings"]["videos"].items():
        q = result["quality"][vname]
        base = rows[WRITER]["cpu_s_median"]
        v = result["video_shapes"][vname]
        lines.append(f"\n## {vname}: {v['frames']} frames, {v['distinct']} distinct")
        lines.append(f"{'setting':66s} {'CPU s':>6s} {'ratio':>6s} {'bytes':>8s} {'dB lossl':>8s} {'dB rgb':>7s}")
        for n, r in rows.items():
            held = f"  held {r['held_frame_ms_median']:.2f} ms" if "held_frame_ms_median" in r else ""
            lines.append(
                f"{n:66s} {r['cpu_s_median']:6.3f} {r['cpu_s_median'] / base:6.3f} {q[n]['bytes']:8d} "
                f"{q[n]['psnr_vs_lossless_db']:8.3f} {q[n]['psnr_vs_rgb_db']:7.3f}  {r['cpu_s']}{held}"
            )
        for n in SAME:
            if n in q:
                same = q[n]["bytes"] == q[WRITER]["bytes"] and q[n]["psnr_vs_rgb_db"] == q[WRITER]["psnr_vs_rgb_db"]
                lines.append(f"{n:66s} (not timed) bytes {q[n]['bytes']}: {'same' if same else 'DIFFERENT'} coding")
    return "\n".join(lines) + "\n"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--videos", default=",".join(VIDEOS), help="comma-separated names of VIDEOS")
    ap.add_argument(
        "--settings", default=",".join(SETTINGS), help=f"comma-separated names of SETTINGS ({WRITER} first)"
    )
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--seconds", type=float, default=10.0)
    ap.add_argument("--fps", type=float, default=50.0)
    ap.add_argument("--json")
    ap.add_argument("--txt")
    args = ap.parse_args()
    os.environ.setdefault("LP_NUM_THREADS", "1")
    vnames = [s for s in args.videos.split(",") if s]
    names = [s for s in args.settings.split(",") if s]
    unknown = [s for s in vnames if s not in VIDEOS] + [s for s in names if s not in SETTINGS]
    if unknown or not vnames or WRITER not in names or args.repeats < 1:
        raise SystemExit(
            f"x264_settings: unknown names {unknown}, or no video, or {WRITER!r} not asked, or repeats < 1"
        )
    result: dict = {
        "machine": machine(),
        "command": " ".join(sys.argv),
        "video_shapes": {},
        "settings": {},
        "quality": {},
    }
    result["settings"] = {n: SETTINGS[n] for n in names} | {n: s for n, s in SAME.items()}
    videos = []
    t0 = time.time()
    for name in vnames:
        v = render(name, args.seconds, args.fps)
        videos.append(v)
        result["video_shapes"][name] = {"frames": len(v.unique), "distinct": len(v.distinct)}
        print(f"rendered {name}: {len(v.unique)} frames, {len(v.distinct)} distinct ({time.time() - t0:.0f} s)")
    with tempfile.TemporaryDirectory(prefix="vb-x264-settings-") as tmp:
        result["timings"] = timings(videos, names, args.repeats, tmp)
        for v in videos:
            result["quality"][v.name] = quality(v, {n: SETTINGS[n] for n in names} | SAME, tmp)
            print(f"quality {v.name} done", flush=True)
    result["machine"]["loadavg_end"] = os.getloadavg()
    text = table(result)
    print(text)
    if args.json:
        with open(args.json, "w") as fh:
            json.dump(result, fh, indent=1)
    if args.txt:
        with open(args.txt, "w") as fh:
            fh.write(f"# {json.dumps(result['machine'])}\n{text}")


if __name__ == "__main__":
    main()
