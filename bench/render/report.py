"""The results of every subcommand run so far, as the markdown tables docs/performance.md quotes."""

from __future__ import annotations

import os

from .paths import PATHS


def markdown(res: dict) -> str:
    lines = [f"Machine: {os.cpu_count()} cores; load average at the end {os.getloadavg()}"]
    if "paths" in res:
        lines += [
            "",
            "| video | path | frames | distinct: by Blender + shared | CPU s (median) | wall s | "
            "renderer CPU ms per distinct frame | same bytes every rep | CPU ratio today/new |",
            "|---|---|---|---|---|---|---|---|---|",
        ]
        for name, v in res["paths"]["items"].items():
            sm = v["summary"]
            for path in PATHS:
                if path in sm:
                    x = sm[path]
                    ratio = f"{sm['ratio_cpu']:.2f}x" if path == "new" and "ratio_cpu" in sm else ""
                    lines.append(
                        f"| {name} | {path} | {x['frames']} | {x['blender_distinct']} + {x['shared']} | "
                        f"{x['cpu_s']:.2f} | {x['wall_s']:.2f} | {x['renderer_ms_per_blender_frame']:.1f} | "
                        f"{x['same_bytes_every_rep']} | {ratio} |"
                    )
    if "quality" in res:
        q = res["quality"]["summary"]
        lines += [
            "",
            f"Anti-aliasing, mean abs error against the 4x4 supersampled render over {q['frames']} frames "
            f"(0-255 per channel): today (Blender FXAA) {q['mae_today']:.3f}, aliased "
            f"{q['mae_aliased']:.3f}, new (numpy FXAA) {q['mae_new']:.3f}; on edge pixels "
            f"{q['mae_edges_today']:.2f} / {q['mae_edges_aliased']:.2f} / {q['mae_edges_new']:.2f}; "
            f"new <= today on {q['new_better_or_equal_frames']} of {q['frames']} frames",
        ]
    if "project" in res:
        pr = res["project"]
        lines += [
            "",
            "| path | ms CPU per distinct frame 320x240 | 960x540 | GRASP L1+L2 core-hours | "
            "AVoE 10% core-hours | GRASP at 640x480 core-hours |",
            "|---|---|---|---|---|---|",
        ]
        for path, x in pr["paths"].items():
            av = x["suites"].get("avoe", {}).get("core_hours")
            r9 = x["r_ms_per_distinct_frame_960x540"]
            lines.append(
                f"| {path} | {x['r_ms_per_distinct_frame_320x240']:.1f} | {r9:.0f} | "
                if r9
                else f"| {path} | {x['r_ms_per_distinct_frame_320x240']:.1f} | - | "
            )
            lines[-1] += f"{x['grasp_core_hours']:.1f} | {av:.1f} | " if av else f"{x['grasp_core_hours']:.1f} | - | "
            lines[-1] += f"{x['grasp_core_hours_640x480']:.1f} |" if "grasp_core_hours_640x480" in x else "- |"
        lines.append(
            f"\nGRASP ratio today/new {pr['ratio_grasp']:.2f}x"
            + (f", AVoE ratio {pr['ratio_avoe']:.2f}x" if "ratio_avoe" in pr else "")
        )
    if "a" in res or "b" in res:
        lines += [
            "",
            "| video | frames | distinct | reuse wall s (median) | naive wall s | ratio wall | ratio CPU | "
            "identical (RGB frames, mp4 bytes, depth/seg/states) |",
            "|---|---|---|---|---|---|---|---|",
        ]
        for k in ("a", "b"):
            if k in res:
                r = res[k]
                i = r["identical"]
                lines.append(
                    f"| ({k}) {r['video']} {r['resolution']} | {r['frames']} | {r['distinct_frames']} | "
                    f"{r['reuse_wall_s_median']:.2f} | {r['naive']['wall_s']:.1f} | {r['ratio_wall']:.1f}x | "
                    f"{r['ratio_cpu']:.1f}x | {i['rgb_frames_equal']}, {i['mp4_bytes_equal']}, "
                    f"{i['depth_segmentation_states_equal']} |"
                )
    if "b" in res:
        lines += [
            "",
            "Where the time of the Level 2 video goes (explicit timers, wall s):",
            "",
            "| piece | reuse | naive |",
            "|---|---|---|",
        ]
        pr, pn = res["b"]["reuse_runs"][0]["profile"], res["b"]["naive"]["profile"]
        for k in pr:
            lines.append(f"| {k} | {pr[k]} | {pn[k]} |")
        r0 = res["b"]["reuse_runs"][0]
        lines.append(
            f"\nPer rendered frame {r0['ms_per_rendered_frame']:.1f} ms, per copied frame "
            f"{r0['ms_per_copied_frame']:.2f} ms, fixed per video {r0['fixed_s']:.2f} s."
        )
    if "c" in res:
        c = res["c"]
        lines += [
            "",
            f"(c) {c['videos']} videos ({c['video']}): warm one process "
            f"{c['median_wall_s']['warm']:.1f} s, a process per video "
            f"{c['median_wall_s']['process_per_video']:.1f} s: {c['ratio']:.2f}x (median of "
            f"{len(c['runs']['warm'])}); outputs identical: {c['runs'].get('identical')}",
        ]
    if "d" in res:
        d = res["d"]
        lines += [
            "",
            f"(d) {d['videos']} videos, {d['frames']} frames ({d['rendered_frames']} rendered), "
            f"{d['cores']} cores; fastest: {d['fastest']}",
            "",
            "| workers x threads | wall s (median) | frames/s | rendered frames/s | frames/s per core | "
            "rendered frames/s per core |",
            "|---|---|---|---|---|---|",
        ]
        for k, v in d["table"].items():
            lines.append(
                f"| {k} | {v['wall_s']:.1f} | {v['frames_per_s']:.1f} | {v['rendered_frames_per_s']:.1f} | "
                f"{v['frames_per_s_per_core']:.1f} | {v['rendered_frames_per_s_per_core']:.2f} |"
            )
    if "e" in res:
        e = res["e"]
        lines += [
            "",
            f"(e) RSS of one worker over {e['videos']} videos ({e['video']}; {e['failed']} not buildable "
            f"at this timing): {e['rss_mb_after']} MB; "
            f"after 300 / after 30 = {e['ratio_300_vs_30']:.3f}; peak {e['peak_mb']:.0f} MB",
        ]
    if "f" in res:
        f = res["f"]
        lines += [
            "",
            "(f) projection (hours)",
            "",
            "| suite | videos | s/video (1 worker) | naive s/video | "
            "hours here | naive hours here | hours on 16 cores |",
            "|---|---|---|---|---|---|---|",
        ]
        for k, v in f["suites"].items():
            lines.append(
                f"| {k} ({v['fraction']:.0%}) | {v['videos']} | {v['s_per_video_one_worker']:.1f} | "
                f"{v['naive_s_per_video_one_worker']:.1f} | {v['hours_here']:.1f} | "
                f"{v['naive_hours_here']:.1f} | {v['hours_16_cores']:.2f} |"
            )
        lines.append(f"| total | | | | {f['total_hours_here']:.1f} | | {f['total_hours_16_cores']:.2f} |")
        cm = f["cpu_model"]
        lines += [
            "",
            f"CPU model: r = {cm['r_cpu_s_320x240'] * 1000:.0f} ms CPU per distinct 320x240 frame, "
            f"{cm['r_cpu_s_960x540'] * 1000:.0f} ms at 960x540, F = {cm['f_cpu_s']:.2f} s per video, "
            f"c = {cm['c_cpu_s'] * 1000:.1f} ms per copied frame; all cores busy",
            "",
            "| suite | CPU s/video | hours here | hours on 16 cores |",
            "|---|---|---|---|",
        ]
        for k, v in f["suites"].items():
            lines.append(
                f"| {k} | {v['cpu_s_per_video']:.1f} | {v['cpu_hours_here']:.1f} | {v['cpu_hours_16_cores']:.2f} |"
            )
        lines.append(f"| total | | {cm['total_hours_here']:.1f} | {cm['total_hours_16_cores']:.2f} |")
    return "\n".join(lines)
