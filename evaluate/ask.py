"""How a video-language model is asked: frames per video, answer length, sampling, system prompt. One definition
for `voebench evaluate` and `voebench export lmms-eval`, so both harnesses ask a model the same way (issue 26).

Both commands add these options with `add_arguments` (same flags, same defaults, same help) and read them with
`from_args`; `evaluate` hands the result to its adapter and runner, the export writes it into the task folder
(evaluate/export/lmms_eval.py: the sampled frames as clips, `generation_kwargs`, the system prompt). A default
changed here changes both. Only the standard library is imported at module level (the CLI stays instant).
"""

from __future__ import annotations

import argparse
import os
from dataclasses import asdict, dataclass

from voebench.errors import UsageError

NUM_FRAMES = 8  # frames per video, uniformly spaced including the first and the last
MAX_NEW_TOKENS = 32
SAMPLING = ("default", "greedy", "sample")  # default = the model's own generation config (the paper's setting)
SYSTEM_PROMPT = "auto"  # supplementary Sec. 4's prompt for the models that had one (evaluate/prompts.py)


@dataclass(frozen=True)
class AskSettings:
    """The settings as given on the command line. `num_frames` None with `fps` None: every frame."""

    num_frames: int | None = NUM_FRAMES
    fps: float | None = None
    max_new_tokens: int = MAX_NEW_TOKENS
    sampling: str = "default"
    temperature: float | None = None
    system_prompt: str = SYSTEM_PROMPT

    @property
    def do_sample(self) -> bool | None:
        """None: the model's own generation config decides (`--sampling default`)."""
        return {"default": None, "greedy": False, "sample": True}[self.sampling]

    def frame_indices(self, n_frames: int, video_fps: float | None) -> list[int]:
        """The frames a model sees of a video of `n_frames` at `video_fps` (frames.sample_frame_indices)."""
        from voebench.evaluate import frames  # numpy

        return frames.sample_frame_indices(n_frames, self.num_frames, self.fps, video_fps)

    def system_prompt_for(self, model_name: str) -> str | None:
        """The system prompt sent to `model_name`: text, the contents of @file, none, or 'auto' (the supplementary
        prompt whose key the lower-cased name contains, '_' read as '-'; else none)."""
        from voebench.evaluate import prompts

        value = self.system_prompt
        if value == "auto":
            return prompts.default_system_prompt(model_name)
        if value.lower() == "none" or value == "":
            return None
        if value.startswith("@"):
            path = value[1:]
            if not os.path.isfile(path):
                raise UsageError(f"--system-prompt {value}: no such file")
            with open(path, encoding="utf-8") as fh:
                return fh.read().strip() or None
        return value

    def generation_kwargs(self) -> dict:
        """What the model's generate call gets: `max_new_tokens`, and `do_sample` / `temperature` only where set
        (absent: the model's own config). No stop string: voebench reads the whole answer (`until: []`, which
        lmms-eval would otherwise set to its few-shot delimiter "\\n\\n")."""
        out: dict = {"max_new_tokens": self.max_new_tokens, "until": []}
        if self.do_sample is not None:
            out["do_sample"] = self.do_sample
        if self.temperature is not None:
            out["temperature"] = self.temperature
        return out

    def as_dict(self) -> dict:
        return asdict(self)


def add_arguments(p: argparse._ActionsContainer) -> None:
    """The asking options (on a parser or an argument group), for every command that asks, or prepares asking, a
    video-language model."""
    from voebench.evaluate.cli import positive_int  # the CLI module imports this one

    frames = p.add_mutually_exclusive_group()
    frames.add_argument(
        "--num-frames",
        type=int,
        default=NUM_FRAMES,
        help=f"frames per video, uniformly spaced incl. first and last (0 = all; default {NUM_FRAMES})",
    )
    frames.add_argument("--fps", type=float, help="sample this many frames per second instead of --num-frames")
    p.add_argument("--max-new-tokens", type=positive_int("--max-new-tokens"), default=MAX_NEW_TOKENS)
    p.add_argument(
        "--sampling",
        choices=SAMPLING,
        default="default",
        help="default = the model's own generation config (the paper's setting)",
    )
    p.add_argument("--temperature", type=float)
    p.add_argument(
        "--system-prompt",
        default=SYSTEM_PROMPT,
        help="text, @file, 'none', or 'auto' (supplementary Sec. 4 prompt for models that had one)",
    )


def from_args(args: argparse.Namespace) -> AskSettings:
    """The settings of parsed options; bad values refused in one line."""
    if args.num_frames is not None and args.num_frames < 0:
        raise UsageError("--num-frames must be 0 (all frames) or positive")
    if args.fps is not None and args.fps <= 0:
        raise UsageError("--fps must be positive")
    if args.temperature is not None and args.temperature < 0:
        raise UsageError("--temperature must be 0 or more")
    return AskSettings(
        num_frames=None if args.fps is not None or args.num_frames == 0 else args.num_frames,
        fps=args.fps,
        max_new_tokens=args.max_new_tokens,
        sampling=args.sampling,
        temperature=args.temperature,
        system_prompt=args.system_prompt,
    )
