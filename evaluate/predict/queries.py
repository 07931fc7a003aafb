"""The seed's two query forms for a predict clip, with its prompt texts (docs/predict.md quotes them):

- `image`: an ordered sequence of N frames sent as separate images. The seed's CLEVRER images are "the concluding
  frame of each second in a 5-second video"; here the clip up to the cut is split into N equal segments and the last
  frame of each is sent (the prompt states N and the segment length, and is the seed's text word for word when the
  clip is N seconds long);
- `video`: the clip from the first frame to the cut, as a video (up to `video_frames` frames, evenly spaced, always
  including the first frame and the cut frame).

Both record the frame indices and the cut in every sample, so an answer can be traced to exactly what was shown.
"""

from __future__ import annotations

import itertools
import os
import random
from dataclasses import asdict, dataclass

import numpy as np

from voebench.contract.manifest import PREDICTION_VIDEO_QUERY
from voebench.errors import UsageError
from voebench.evaluate.frames import sample_frame_indices
from voebench.evaluate.predict import exact
from voebench.evaluate.tasks import Manifest

FORMS = ("image", "video")
NUMBER_WORDS = {1: "one", 2: "two", 3: "three", 4: "four", 5: "five", 6: "six", 7: "seven", 8: "eight", 9: "nine"}

#: the seed's "Physical Interaction - CLEVRER" image query; {count} and {segment} are "five" and "each second in a
#: 5-second video" in the seed
IMAGE_QUERY = (
    "As an artificial intelligence assistant capable of interpreting visual information, you have seen a sequence of "
    "{count} chronologically arranged images, each extracted from the concluding frame of {segment}. Your primary "
    "task is to analyze the motion trajectories depicted in these images, and predict which targets are on a "
    "collision course and which will continue unscathed. You can give multiple possible results. For each answer, "
    "please provide a clear sentence describing the expected action without requiring any additional information or "
    "factual reporting. Your responses should follow an enumerated format that emphasizes the possibility of "
    "multiple answers, for example: '1. [First possible answer]', '2. [Second possible answer]', '3. [Third possible "
    "answer]', and so on."
)
VIDEO_QUERY = PREDICTION_VIDEO_QUERY  # the manifest's prompt text (voebench.contract.manifest)
#: prompt variants of the collision questions: the seed's wording, or the seed's wording ending with one line the
#: exact scorer reads strictly (exact.read_structured; an answer without a well-formed line is unparsed)
PROMPTS = ("seed", "structured")
STRUCTURED_SUFFIX = (
    " After your answer, end with one final line that lists every pair of objects you predict will collide, naming "
    "each object by its colour and shape, exactly in this form: 'COLLISIONS: <colour> <shape> + <colour> <shape>; "
    "<colour> <shape> + <colour> <shape>', or 'COLLISIONS: none' if no two objects will collide."
)


def image_frames(cut_frame: int, n: int) -> list[int]:
    """The last frame of each of n equal segments of frames 0..cut_frame (the seed: the concluding frame of each
    second); fewer when the clip has fewer frames."""
    length = cut_frame + 1
    n = min(n, length)
    return sorted({int(np.ceil(length * (k + 1) / n)) - 1 for k in range(n)})


def image_query(n: int, clip_seconds: float) -> str:
    count = NUMBER_WORDS.get(n, str(n))
    seg = clip_seconds / n
    if abs(seg - 1.0) < 1e-6:
        segment = f"each second in a {clip_seconds:g}-second video"
    else:
        segment = f"each {seg:.2f}-second segment of a {clip_seconds:.2f}-second video"
    return IMAGE_QUERY.format(count=count, segment=segment)


def clip_fields(entry: dict, root: str) -> dict:
    """The video a sample shows, from its manifest entry: the fields every predict sample type shares."""
    return {
        "video_id": entry["id"],
        "video_rel": entry["video"],
        "video_path": os.path.join(root, entry["video"]),
        "fps": float(entry["fps"]),
        "n_frames": int(entry["n_frames"]),
        "width": int(entry["width"]),
        "height": int(entry["height"]),
    }


def clip_message(sample) -> dict:
    """The user turn in the adapters' format (models/base.py) for a predict sample of any type: its prompt and its
    clip's frames; `as_images` asks for separate images (the image query form)."""
    return {
        "role": "user",
        "text": sample.prompt,
        "video": {
            "rel": sample.video_rel,
            "path": sample.video_path,
            "indices": list(sample.frames),
            "fps": sample.fps,
            "n_frames": sample.n_frames,
            "width": sample.width,
            "height": sample.height,
            "as_images": sample.form == "image",
        },
    }


@dataclass
class PredictSample:
    """One question: a clip (by its frames), the prompt, and the ground truth from the manifest's `prediction`."""

    sample_id: str
    video_id: str
    form: str
    video_rel: str
    video_path: str
    fps: float
    n_frames: int
    width: int
    height: int
    frames: list
    cut_frame: int
    prompt: str
    labels: list
    true_pairs: list
    true_unhit: list
    answer: str
    attributes: str
    outcome: str
    test: str = "collisions"
    kind: str = "collision"  # the question type (report rows; event questions are `event`)
    strategy: str = "zero-shot"
    prompt_variant: str = "seed"  # PROMPTS: "structured" asks for a final COLLISIONS line

    def record(self) -> dict:
        d = asdict(self)
        d.pop("video_path")
        return d

    def score(self, text: str) -> tuple[dict, exact.Score]:
        structured = self.prompt_variant == "structured"
        parsed, sc = exact.score(text, self.labels, self.true_pairs, self.true_unhit, structured=structured)
        return parsed.as_dict(), sc

    def fake_answer(self, kind: str, rng: random.Random) -> str:
        """What a `fake:<kind>` model answers (evaluate/predict/fake.py); under the structured prompt it ends with
        the COLLISIONS line."""
        if kind == "oracle":
            pairs = [list(p) for p in self.true_pairs]
        elif kind == "never":
            pairs = []
        else:
            pairs = [list(p) for p in itertools.combinations(self.labels, 2)]
            if kind == "random":
                pairs = [p for p in pairs if rng.random() < 0.5]
        text = describe_pairs(pairs, self.labels)
        return text + "\n" + structured_line(pairs) if self.prompt_variant == "structured" else text

    def message(self) -> dict:
        """The user turn in the adapters' format (models/base.py); `as_images` asks for separate images."""
        return clip_message(self)


def describe_pairs(pairs: list, labels: list) -> str:
    """An enumerated answer naming these pairs as colliding and every other object as unscathed."""
    hit = {x for p in pairs for x in p}
    lines = [f"The {a} will collide with the {b}." for a, b in pairs]
    lines += [f"The {x} will continue unscathed." for x in labels if x not in hit]
    if not pairs:
        lines.insert(0, "No two objects will collide.")
    return "\n".join(f"{k}. {s}" for k, s in enumerate(lines, 1))


def structured_line(pairs: list) -> str:
    """The structured prompt's final line for these pairs ("COLLISIONS: red cube + blue sphere" / "... none")."""
    return "COLLISIONS: " + ("; ".join(f"{a} + {b}" for a, b in pairs) if pairs else "none")


def attributes(pred: dict) -> str:
    """The judge prompt's object attributes: each object's position and velocity in the last frame shown."""
    out = []
    for o in pred["objects"]:
        x, y = o["position_at_cut"]
        vx, vy = o["velocity_at_cut"]
        out.append(f"{o['label']}: position ({x:.2f}, {y:.2f}) m, velocity ({vx:.2f}, {vy:.2f}) m/s")
    return "; ".join(out)


def build_samples(
    manifest: Manifest,
    forms: list[str],
    image_count: int = 5,
    video_frames: int = 16,
    prompts: tuple[str, ...] | list[str] = ("seed",),
) -> list:
    """One sample per (video with a `prediction`, query form, prompt variant), in manifest order. Seed-prompt
    samples keep the id `<video>#<form>`; structured ones are `<video>#<form>#structured`."""
    for f in forms:
        if f not in FORMS:
            raise UsageError(f"--forms {f}: choose from {', '.join(FORMS)}")
    for v in prompts:
        if v not in PROMPTS:
            raise UsageError(f"--prompt {v}: choose from {', '.join(PROMPTS)} or both")
    out = []
    for e in manifest.entries:
        pred = e.get("prediction")
        if not pred:
            continue
        if not e.get("video"):
            raise UsageError(f"{e['id']}: no video (rendered with --states-only?); render the set with pixels")
        cut = int(pred["cut_frame"])
        clip = (cut + 1) / float(e["fps"])
        for form, variant in itertools.product(forms, prompts):
            if form == "image":
                frames, prompt = image_frames(cut, image_count), image_query(min(image_count, cut + 1), clip)
            else:
                frames, prompt = sample_frame_indices(cut + 1, video_frames), VIDEO_QUERY
            if variant == "structured":
                prompt += STRUCTURED_SUFFIX
            out.append(
                PredictSample(
                    sample_id=f"{e['id']}#{form}" + ("" if variant == "seed" else f"#{variant}"),
                    prompt_variant=variant,
                    form=form,
                    **clip_fields(e, manifest.root),
                    frames=frames,
                    cut_frame=cut,
                    prompt=prompt,
                    labels=[o["label"] for o in pred["objects"]],
                    true_pairs=[list(c["objects"]) for c in pred["collisions"]],
                    true_unhit=list(pred["unhit"]),
                    answer=pred["answer"],
                    attributes=attributes(pred),
                    outcome=pred["outcome"],
                    test=e["test"],
                )
            )
    return out
