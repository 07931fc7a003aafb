"""GRASP parsing rules (tools/compute_accuracy.py), frame sampling, and tasks built from a manifest."""

import numpy as np
import pytest

from voebench.errors import UsageError
from voebench.evaluate import frames, prompts
from voebench.evaluate.parsing import OPEN_CHOICES, first_token, parse_binary, parse_open, score
from voebench.evaluate.tasks import build_samples, load_manifest, select


@pytest.mark.parametrize(
    "response,parsed",
    [
        ("Yes.", "yes"),
        ("yes", "yes"),
        ("YES!", "yes"),
        ("No, because the ball falls.", "no"),
        ("no", "no"),
        ("'No'", "no"),
        ("Yes,it is", "invalid"),  # first token is "Yes,it" -> "yesit"
        ("I think yes", "invalid"),
        ("", "invalid"),
        ("   ", "invalid"),
        (None, "invalid"),
        ("Yeah", "invalid"),
        ("Nope.", "invalid"),
        ("\nYes\n", "yes"),
        ("y.e.s", "yes"),
        ("Yes—it is", "invalid"),  # an em dash is not ASCII punctuation: stays in the token
    ],
)
def test_binary_first_token_rule(response, parsed):
    p = parse_binary(response, "yes")
    assert p.answer == parsed
    assert p.valid == (parsed != "invalid")
    assert p.correct == (parsed == "yes")


def test_binary_invalid_counts_wrong_for_both_truths():
    for truth in ("yes", "no"):
        assert not parse_binary("Maybe", truth).correct
    assert parse_binary("No.", "no").correct
    assert first_token("  Yes... sure") == "yes"


def test_open_keyword_classes():
    shape = OPEN_CHOICES["shape"]
    assert parse_open("It is a sphere.", "ball", shape).correct
    assert parse_open("A red ball on a square table", "ball", shape).answer == "invalid"  # two classes
    assert parse_open("a Cube!", "ball", shape).answer == "cube"
    assert not parse_open("a Cube!", "ball", shape).correct
    assert parse_open("I don't know", "ball", shape).answer == "invalid"
    assert parse_open("The balls", "ball", shape).answer == "invalid"  # whole words only


def test_open_direction_special_case():
    d = OPEN_CHOICES["direction"]
    assert parse_open("It rolls from right to left.", "left", d, direction=True).correct
    assert parse_open("From the right to the left", "left", d, direction=True).correct  # "right to the left"
    assert parse_open("from the right side to the left", "left", d, direction=True).answer == "invalid"
    assert parse_open("moving right to the left", "left", d, direction=True).correct
    assert parse_open("left to right", "right", d, direction=True).correct
    assert parse_open("right to left", "left", d, direction=False).answer == "invalid"
    assert parse_open("It goes upwards", "forward", d, direction=True).correct
    # the rule only protects the true label: "left to right" when the truth is left is a contradiction
    assert parse_open("left to right", "left", d, direction=True).answer == "invalid"


def test_score_dispatch_uses_family_keywords_without_choices():
    assert score("open", "it is round", "ball", None, "shape").correct
    assert score("open", "right to left", "left", None, "directionality").correct
    assert score("plausibility", "No.", "no").correct
    with pytest.raises(ValueError):
        score("weird", "yes", "yes")


def test_frame_sampling_uniform_with_first_and_last():
    assert frames.sample_frame_indices(500, 8) == [0, 71, 143, 214, 285, 356, 428, 499]
    assert frames.sample_frame_indices(8, 4) == [0, 2, 5, 7]
    assert frames.sample_frame_indices(5, 10) == [0, 1, 2, 3, 4]
    assert frames.sample_frame_indices(5) == [0, 1, 2, 3, 4]
    idx = frames.sample_frame_indices(500, fps=1.0, video_fps=50)
    assert idx[0] == 0 and idx[-1] == 499 and len(idx) == 11
    assert frames.sample_frame_indices(100, 1) == [0]
    with pytest.raises(ValueError):
        frames.sample_frame_indices(10, 4, fps=2, video_fps=10)


def test_read_frames_decoders_agree(tiny_set):
    m = load_manifest(tiny_set)
    v = m.video(m.entries[0])
    got = frames.read_frames(v.path, [0, 3, 7])
    assert got.shape == (3, 48, 64, 3) and got.dtype == np.uint8
    # the white square moves 6 px per frame: frame 7 is lit where frame 0 is not
    assert got[2, 15, 4 + 6 * 7 + 2].mean() > 200 and got[0, 15, 4 + 6 * 7 + 2].mean() < 200
    alt = frames._decode_imageio(v.path, {0, 3, 7})
    assert np.abs(alt[7].astype(int) - got[2].astype(int)).mean() < 3
    with pytest.raises(RuntimeError):
        frames.read_frames(v.path, [0, 50])


def test_tasks_strategies(tiny_set):
    m = load_manifest(tiny_set)
    entries = select(m)
    zs = build_samples(m, entries, "zero-shot")
    kinds = {s.kind for s in zs}
    assert kinds == {"binary", "plausibility"}
    # Level 1: one positive and one negative per video; Level 2 / AVoE: one plausibility question per video
    l1 = [s for s in zs if s.suite == "grasp-l1"]
    assert sum(s.polarity == "positive" for s in l1) == sum(s.polarity == "negative" for s in l1) == 6
    assert all(len(s.turns) == 1 and s.turns[0].video is not None for s in zs)

    op = build_samples(m, entries, "open")
    assert {s.test for s in op} == {"shape", "directionality"}  # movement has no open question

    cot = {s.sample_id: s for s in build_samples(m, entries, "cot")}
    shape = cot["grasp-l1/shape/00000#binary-positive"]
    assert shape.turns[0].text == "What shape is the object on the table?" and shape.turns[0].video
    assert shape.turns[1].video is None and shape.turns[1].text.startswith("A ball is on the table.")
    assert cot["grasp-l1/movement/00000#binary-negative"].turns[0].text == prompts.COT_GENERIC

    os1 = build_samples(m, entries, "one-shot", seed=3)
    os2 = build_samples(m, entries, "one-shot", seed=3)
    assert [s.example for s in os1] == [s.example for s in os2]
    for s in os1:
        assert s.example["video_id"] != s.video_id
        assert s.example["video_id"].split("/")[:2] == s.video_id.split("/")[:2]
        assert s.turns[0].text == prompts.ONE_SHOT.format(question=s.example["question"], answer=s.example["answer"])
        assert s.turns[0].text.startswith(
            "This is an example of a question about this video and the correct answer.\nQuestion: "
        )
        assert s.turns[0].video.rel != s.turns[1].video.rel
    assert {s.example["polarity"] for s in os1} == {"positive", "negative"}

    txt = {s.sample_id: s for s in build_samples(m, entries, "text")}
    l2 = txt["grasp-l2/t09_gravity/00000-implausible#plausibility"]
    assert l2.turns[0].video is None
    assert l2.turns[0].text == (
        "Is the following scenario physically plausible? Do not assume that mechanisms or forces are at play other "
        "than the ones described in the text. Answer only with yes or no.\n"
        "A scene of test t09_gravity, condition implausible."
    )


def test_select_filters_and_errors(tiny_set):
    m = load_manifest(tiny_set)
    assert {e["suite"] for e in select(m, suites=["grasp-l2"])} == {"grasp-l2"}
    assert {e["test"] for e in select(m, tests=["grasp-l1/shape", "A1"])} == {"shape", "A1"}
    assert len(select(m, tests=["t09_gravity"], limit=1)) == 2  # a limit never cuts a pair: the twin comes along
    assert len(select(m, tests=["shape"], limit=1)) == 1
    with pytest.raises(UsageError):
        select(m, suites=["nope"])
    with pytest.raises(UsageError):
        build_samples(m, select(m), "four-shot")
    with pytest.raises(UsageError):
        load_manifest(tiny_set + "/grasp-l1")
