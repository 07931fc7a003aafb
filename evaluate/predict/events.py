"""Prediction questions for the paired suites (GRASP Level 2, AVoE): the plausible (expected) video is cut before
its event, and the model is asked what happens next.

The event is located from the written files alone: the implausible twin's `violation.first_frame` is the first
frame where the two videos differ, so everything shown before it is the same in both and the continuation is
what the simulation of the plausible video did. The cut is the frame before that; a pair is skipped when the
clip shows nothing moving before the cut or never shows the violation's object (nothing to predict from: e.g. a
ball that only appears at the event), or when the clip would be shorter than MIN_CLIP seconds.

The question is a two-way choice between the two twins' ground-truth descriptions (option order seeded per
video), so it has an exact answer (the letter); the judge compares the whole reply with the plausible description.
"""

from __future__ import annotations

import os
import random
from dataclasses import asdict, dataclass

import numpy as np

from voebench.contract.hdf5 import read_states
from voebench.contract.pairs import PAIR_VOCABULARIES
from voebench.evaluate.frames import sample_frame_indices
from voebench.evaluate.predict import exact
from voebench.evaluate.predict.queries import clip_fields, clip_message, image_frames, image_query
from voebench.evaluate.tasks import Manifest

MIN_CLIP = 1.0  # s
MIN_SEEN = 3  # frames: the violation's object must be visible (pixels) and moving in this many frames before the cut
#: the seed's Physical Interaction video query with its task sentence turned from collisions to "what happens next"
EVENT_VIDEO_QUERY = (
    "As an artificial intelligence assistant capable of interpreting visual information, you have seen a video of "
    "physics-driven interactions among various objects. Your primary task is to analyze the motion trajectories "
    "depicted in this video, and predict what will happen next."
)
CHOICE = (
    " The video stops just before the outcome. Which of these two descriptions of the whole video will be true "
    "once it continues?\nA: {a}\nB: {b}\nStart your answer with A or B, then give a clear sentence describing the "
    "expected outcome."
)


@dataclass
class EventSample:
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
    answer: str  # the plausible video's description (the judge's true label)
    outcome: str  # the correct letter
    options: dict
    attributes: str
    test: str
    kind: str = "event"
    strategy: str = "zero-shot"
    labels: tuple = ()

    def record(self) -> dict:
        d = asdict(self)
        d.pop("video_path")
        return d

    def message(self) -> dict:
        return clip_message(self)

    def score(self, text: str) -> tuple[dict, exact.Score]:
        letter, sc = exact.score_choice(text, self.outcome)
        return {"choice": letter}, sc

    def fake_answer(self, kind: str, rng: random.Random) -> str:
        if kind == "oracle":
            letter = self.outcome
        elif kind == "random":
            letter = rng.choice("AB")
        else:
            letter = "A"
        return f"{letter}. {self.options[letter]}"


def _seen(o: dict, cut: int) -> np.ndarray:
    """Frames 0..cut where the object shows (pixels when measured, else its `visible` flag)."""
    pixels = o["visible_pixels"][: cut + 1]
    return (pixels > 0) if (pixels >= 0).all() else o["visible"][: cut + 1].astype(bool)


def _predictable(states: dict, name: str, cut: int) -> str | None:
    """None when the clip up to the cut shows something to predict from, else why not: some object that is not
    scenery is seen moving for MIN_SEEN frames, and the violation's object is seen at least once."""
    moving = 0
    for o in states["objects"].values():
        if o.get("fixture"):
            continue
        moved = np.r_[False, np.linalg.norm(np.diff(o["position"][: cut + 1], axis=0), axis=1) > 1e-6]
        moving = max(moving, int((moved & _seen(o, cut)).sum()))
    if moving < MIN_SEEN:
        return "nothing is seen moving before the cut"
    if name not in states["objects"] or not _seen(states["objects"][name], cut).any():
        return f"{name} is not seen before the cut"
    return None


def build_event_samples(manifest: Manifest, forms: list, image_count: int = 5, video_frames: int = 16) -> tuple:
    """(samples, skipped pair ids with the reason) for every whole plausible/implausible pair in the set."""
    groups: dict[str, dict] = {}
    for e in manifest.entries:
        if e.get("pair_id") and e["suite"] != "predict":
            groups.setdefault(e["pair_id"], {})[e["condition"]] = e
    out, skipped = [], {}
    for pid, pair in sorted(groups.items()):
        vocab = next((v for v in PAIR_VOCABULARIES if set(v) <= set(pair)), None)
        if vocab is None:
            skipped[pid] = "not a whole pair"
            continue
        good, bad = pair[vocab[0]], pair[vocab[1]]
        if not good.get("video"):
            skipped[pid] = "no video"
            continue
        v = bad.get("violation") or {}
        cut = int(v.get("first_frame", 0)) - 1
        if cut + 1 < MIN_CLIP * float(good["fps"]):
            skipped[pid] = f"the event starts at frame {cut + 1}, under {MIN_CLIP:g} s in"
            continue
        states = read_states(os.path.join(manifest.root, good["states"]))
        why = _predictable(states, v.get("object", ""), cut)
        if why is not None:
            skipped[pid] = why
            continue
        rng = random.Random(f"{good['id']}/options")
        swap = rng.random() < 0.5
        options = (
            {"A": bad["description"], "B": good["description"]}
            if swap
            else {"A": good["description"], "B": bad["description"]}
        )
        letter = "B" if swap else "A"
        clip = (cut + 1) / float(good["fps"])
        for form in forms:
            if form == "image":
                frames = image_frames(cut, image_count)
                base = image_query(len(frames), clip).split(" Your primary task")[0] + (
                    " Your primary task is to analyze the motion trajectories depicted in these images, and predict "
                    "what will happen next."
                )
            else:
                frames, base = sample_frame_indices(cut + 1, video_frames), EVENT_VIDEO_QUERY
            out.append(
                EventSample(
                    sample_id=f"{good['id']}#event-{form}",
                    form=form,
                    **clip_fields(good, manifest.root),
                    frames=frames,
                    cut_frame=cut,
                    prompt=base + CHOICE.format(a=options["A"], b=options["B"]),
                    answer=good["description"],
                    outcome=letter,
                    options=options,
                    attributes=f"{good['suite']} test {good['test']}; the video is cut at frame {cut} of "
                    f"{good['n_frames']} ({clip:.1f} s), just before the event",
                    test=good["test"],
                )
            )
    return out, skipped
