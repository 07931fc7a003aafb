"""The lmms-eval export scores answers as voebench does: evaluate/export/lmms_eval_utils.py (copied verbatim into
an exported task, so it cannot import voebench) must agree with evaluate/parsing.py (and, for choice questions,
evaluate/newton/answers.py) on every answer, tricky ones above all. A change to one parser that is not made to the
other fails here. The last test exports a tiny `newton` set and checks the hooks against `voebench evaluate` /
`voebench report` on the same replies."""

import importlib.util
import os
import json
import pathlib

import pytest

from voebench.evaluate.newton.answers import pick
from voebench.evaluate.parsing import INVALID, OPEN_CHOICES, score
from voebench.evaluate.verdict import read_verdict

UTILS = pathlib.Path(__file__).resolve().parents[2] / "evaluate" / "export" / "lmms_eval_utils.py"


@pytest.fixture(scope="module")
def exported():
    spec = importlib.util.spec_from_file_location("exported_lmms_eval_utils", UTILS)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# Binary answers: only the first whitespace token counts, lower-cased, with ASCII punctuation removed anywhere in it.
BINARY = [
    "Yes",
    "yes.",
    "YES!",
    "  no",
    "No, it is not.",
    "Yes-",
    '"Yes"',
    "(no)",
    "y",
    "Nope",
    "noo",
    "yes/no",
    "Yes\nNo",
    "no\tyes",
    "Maybe yes",
    "",
    None,
    "   ",
    "Yes’",
    "Ｙｅｓ",
    "¿yes?",
    "N.O.",
    "ye-s",
    "Yes.No",
    "I think yes",
    "NO!!!",
    "Non",
    "*yes*",
    "`no`",
    "yes\u00a0indeed",
]

# Open answers: (test, truth, response). Whole words only; a true and a wrong keyword together is invalid; the
# Directionality test lets "right to left" name left (and the mirror for right).
OPEN = [
    ("shape", "ball", "It is a ball."),
    ("shape", "ball", "A sphere, not a cube"),
    ("shape", "ball", "round box"),
    ("shape", "ball", "The shape is square"),
    ("shape", "ball", "BALL!"),
    ("shape", "ball", "balls"),
    ("shape", "ball", "a cube-like ball"),
    ("shape", "cube", "ball? cube?"),
    ("shape", "cube", ""),
    ("shape", "cube", None),
    ("shape", "cube", "Rectangular."),
    ("color", "red", "Red."),
    ("color", "red", "reddish"),
    ("color", "red", "red and blue"),
    ("color", "black", "It's black-and-white"),
    ("color", "green", "The ball is GREEN, not blue."),
    ("directionality", "left", "It moves from right to left"),
    ("directionality", "left", "from the right to the left"),
    ("directionality", "left", "it moved right"),
    ("directionality", "left", "forward and left"),
    ("directionality", "left", "Left."),
    ("directionality", "right", "left to right"),
    ("directionality", "right", "Left To Right."),
    ("directionality", "right", "right to left"),
    ("directionality", "forward", "upwards!"),
    ("directionality", "forward", "UP"),
    ("directionality", "forward", "down"),
    ("directionality", "backward", "backwards, then forwards"),
    ("relational_position", "left", "left"),
    ("relational_position", "left", "right to left"),
    ("relational_position", "right", "On the right."),
    ("relational_position", "right", "It is on the left of the right cube"),
]


# Choice answers: (labels, letters, truth, response). A letter counts only as the first word of lettered options; else
# exactly one label as a whole phrase, case-insensitively, underscores as spaces; a label inside a longer one's
# occurrence does not count.
BALLS = ["the red ball", "the green ball", "the blue ball"]
TF = ["True", "False"]
FOODS = ["cake", "chocolate cake", "brick", "egg"]
LIKERT = ["No", "Somewhat", "Yes"]
CHOICE = [
    (BALLS, False, "the blue ball", "the blue ball"),
    (BALLS, False, "the blue ball", "The Blue Ball."),
    (BALLS, False, "the blue ball", "I would choose the blue ball, it bounces most."),
    (BALLS, False, "the blue ball", "the red ball"),
    (BALLS, False, "the blue ball", "the red ball or the blue ball"),
    (BALLS, False, "the blue ball", "blue"),
    (BALLS, False, "the blue ball", "the blueball"),
    (BALLS, False, "the blue ball", "the_blue_ball"),
    (BALLS, False, "the blue ball", "the  blue\nball"),
    (BALLS, False, "the red ball", "c"),
    (BALLS, False, "the red ball", ""),
    (BALLS, False, "the red ball", None),
    (TF, False, "True", "True"),
    (TF, False, "True", "true."),
    (TF, False, "False", "TRUE"),
    (TF, False, "False", "False, the red ball is less elastic."),
    (TF, False, "False", "Not true: false."),
    (TF, False, "True", "untrue"),
    (TF, False, "True", "a"),
    (FOODS, False, "chocolate cake", "Chocolate cake."),
    (FOODS, False, "cake", "Chocolate cake."),
    (FOODS, False, "cake", "cake, not chocolate cake"),
    (FOODS, False, "brick", "brick or egg"),
    (FOODS, False, "egg", "eggs"),
    (LIKERT, True, "Yes", "c) Yes: it recovers"),
    (LIKERT, True, "Somewhat", "(b)"),
    (LIKERT, True, "Somewhat", "B."),
    (LIKERT, True, "No", "d"),
    (LIKERT, True, "No", "a) no"),
    (LIKERT, True, "Yes", "Yes, it can."),
    (LIKERT, True, "Yes", "No or yes"),
    (LIKERT, True, "No", "ab"),
]


def metrics(kind: str, correct: bool, valid: bool, response: str = "", truth: str = "") -> dict[str, float]:
    """What the exported process_results returns for one question: pooled, and under its kind's own names; for
    yes/no kinds also the careful reader's reading (evaluate/verdict.py)."""
    acc, invalid = float(correct), float(not valid)
    out = {"grasp_acc": acc, "grasp_invalid": invalid, f"grasp_acc_{kind}": acc, f"grasp_invalid_{kind}": invalid}
    if kind in ("binary", "plausibility"):
        verdict = read_verdict(response, kind == "plausibility")
        out[f"careful_acc_{kind}"] = float(verdict is not None and verdict == truth)
        out[f"careful_unparsed_{kind}"] = float(verdict is None)
    return out


@pytest.mark.parametrize("labels,letters,truth,response", CHOICE)
def test_choice_answers_agree(exported, labels, letters, truth, response):
    choices = {"labels": labels, "letters": letters}
    ours = score("choice", response, truth, choices)
    for doc_choices in (json.dumps(choices), choices):
        doc = {"kind": "choice", "answer": truth, "choices": doc_choices, "direction": False}
        theirs = exported.process_results(doc, [response])
        assert theirs == metrics(doc["kind"], ours.correct, ours.valid)
    parsed = exported._parse_choice(response, choices)
    assert (parsed if parsed is not None else INVALID) == pick(response, labels, letters)


@pytest.mark.parametrize("response", BINARY)
@pytest.mark.parametrize("truth", ["yes", "no"])
def test_binary_answers_agree(exported, response, truth):
    ours = score("plausibility", response, truth)
    doc = {"kind": "plausibility", "answer": truth, "choices": "", "direction": False}
    theirs = exported.process_results(doc, [response])
    assert theirs == metrics(doc["kind"], ours.correct, ours.valid, response, truth)
    parsed = exported._parse_binary(response)
    assert (parsed if parsed is not None else INVALID) == ours.answer


@pytest.mark.parametrize("test,truth,response", OPEN)
def test_open_answers_agree(exported, test, truth, response):
    family = {"shape": "shape", "color": "color", "directionality": "direction", "relational_position": "relational"}[
        test
    ]
    choices = OPEN_CHOICES[family]
    ours = score("open", response, truth, choices, test=test)
    # the export writes the keyword classes as a JSON string; lmms-eval may also hand them back decoded
    for doc_choices in (json.dumps(choices), choices):
        doc = {"kind": "open", "answer": truth, "choices": doc_choices, "direction": family == "direction"}
        theirs = exported.process_results(doc, [response])
        assert theirs == metrics(doc["kind"], ours.correct, ours.valid)
    parsed = exported._parse_open(response, truth, choices, family == "direction")
    assert (parsed if parsed is not None else INVALID) == ours.answer


def test_the_table_covers_every_outcome():
    # a table where every answer is valid (or every one invalid) would let a parser that ignores its input pass
    outcomes = {(p.valid, p.correct) for p in (score("plausibility", r, "yes") for r in BINARY)}
    outcomes |= {(p.valid, p.correct) for p in (score("open", r, t, test=test) for test, t, r in OPEN)}
    assert outcomes == {(True, True), (True, False), (False, False)}
    choice = {
        (p.valid, p.correct) for p in (score("choice", r, t, {"labels": la, "letters": le}) for la, le, t, r in CHOICE)
    }
    assert choice == {(True, True), (True, False), (False, False)}


# ------------------------------------------------------------------------------------------------ a newton set


class _Sampled(dict):
    """The sampled values a `newton` scene module reads, by key (`p["restitution"]`) and by attribute (`p.order`)."""

    __getattr__ = dict.__getitem__


NEWTON_VIDEOS = [  # (test, index, sampled values): the answers' positions differ between the two elasticity videos
    ("elasticity", 0, {"order": "012", "restitution": {"low": 0.2, "mid": 0.5, "high": 0.8}}),
    ("elasticity", 1, {"order": "210", "restitution": {"low": 0.2, "mid": 0.5, "high": 0.8}}),
    ("heaviness", 0, {"order": "10", "mass": _Sampled(light=0.5, ratio=4.0)}),
]


def make_newton_set(root, prompts=None) -> str:
    """Three `newton` videos (stub mp4 and HDF5 files) whose questions are written by the suite's own `prompts`, so
    the set asks what `voebench render newton` asks, without Blender."""
    import importlib

    from contract_fixtures import complete_entry, write_dataset
    from evaluate_fixtures import FPS, H, T, W, write_h5, write_mp4

    from voebench.contract import manifest as mf
    from voebench.scenes import newton

    entries = []
    for n, (test, index, values) in enumerate(NEWTON_VIDEOS):
        m = importlib.import_module(f"voebench.scenes.newton.{test}")
        p = _Sampled(color_offset=0, color_step=2, **values)
        stem = f"newton/{test}/{index:05d}"
        os.makedirs(os.path.join(root, "newton", test), exist_ok=True)
        e = complete_entry(
            {
                "id": stem,
                "suite": "newton",
                "test": test,
                "index": index,
                "condition": "trial",
                "seed": n,
                "video": f"{stem}.mp4",
                "states": f"{stem}.h5",
                "n_frames": T,
                "fps": FPS,
                "width": W,
                "height": H,
                "prompts": newton.questions(test, m, p) if prompts is None else prompts,
                "description": f"Objects side by side ({test}).",
            }
        )
        write_mp4(os.path.join(root, e["video"]), n)
        write_h5(os.path.join(root, e["states"]), e)
        entries.append(e)
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    write_dataset(root)
    return str(root)


def _replies(labels: list[str], truth: str) -> list[str]:
    """Replies of every outcome for one choice question: right, right in other words, wrong, several, none."""
    other = next(lab for lab in labels if lab != truth)
    return [
        truth,
        f"{truth.upper()}.",
        f"I would pick {truth}, clearly.",
        other,
        f"{truth} or {other}",
        "",
        "none of them",
        "b",
    ]


def test_newton_export_agrees_with_the_report(exported, tmp_path):
    from voebench.cli import main

    dataset = make_newton_set(tmp_path / "set")
    out = tmp_path / "lmms"
    assert main(["export", "lmms-eval", dataset, "--out", str(out), "--name", "voe_newton"]) == 0
    docs = [json.loads(line) for line in (out / "data.jsonl").read_text().splitlines()]
    manifest = [json.loads(line) for line in (pathlib.Path(dataset) / "manifest.jsonl").read_text().splitlines()]
    asked = [(e["id"], p) for e in manifest for p in e["prompts"]]
    assert len(docs) == len(asked) == 15 and len({d["id"] for d in docs}) == 15  # one id per question
    for doc, (video_id, prompt) in zip(docs, asked):
        assert doc["kind"] == "choice" and doc["video_id"] == video_id and doc["question"] == prompt["text"]
        assert doc["answer"] == prompt["answer"]  # as written: "True", "the blue ball"
        assert json.loads(doc["choices"]) == prompt["choices"]
        assert doc["polarity"] == prompt.get("polarity")
    assert {d["answer"] for d in docs} >= {"True", "False", "the red ball"}  # not lower-cased, not yes/no

    # the same replies through voebench: one repeat per reply, read back by the replay adapter
    per_doc = {d["id"]: _replies(json.loads(d["choices"])["labels"], d["answer"]) for d in docs}
    n_rep = len(next(iter(per_doc.values())))
    replies = tmp_path / "replies.jsonl"
    replies.write_text(
        "".join(
            json.dumps({"sample_id": sid, "repeat": r, "response": text}) + "\n"
            for sid, texts in per_doc.items()
            for r, text in enumerate(texts)
        )
    )
    run = tmp_path / "run"
    argv = ["evaluate", dataset, "--model", f"replay:{replies}", "--out", str(run), "--repeats", str(n_rep)]
    assert main([*argv, "--no-progress"]) == 0
    records = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]
    assert len(records) == len(docs) * n_rep
    assert {r["sample_id"] for r in records} == set(per_doc)  # the export's ids are voebench's sample ids
    doc_by_id = {d["id"]: d for d in docs}
    exported_scores: dict[str, list[float]] = {}
    for rec in records:
        doc = doc_by_id[rec["sample_id"]]
        theirs = exported.process_results(doc, [per_doc[doc["id"]][rec["repeat"]]])
        assert theirs == metrics("choice", rec["correct"], rec["valid"]), rec
        exported_scores.setdefault(doc["test"], []).append(theirs["grasp_acc"])
    assert {float(r["correct"]) for r in records} == {0.0, 1.0}

    # and the report's accuracy per test is the mean of what the exported task scores
    assert main(["report", str(run)]) == 0
    results = json.loads((run / "results.json").read_text())
    rows = [r for r in results["tests"] if r["suite"] == "newton"]
    assert {r["test"] for r in rows} == set(exported_scores)
    for row in rows:
        scores = exported_scores[row["test"]]
        assert row["acc"] == pytest.approx(sum(scores) / len(scores))


def test_kinds_without_a_scorer_are_left_out(tmp_path, capsys):
    # a predict-suite question used to be exported and scored as yes/no; now a set of only those is refused
    from voebench.cli import main

    prediction = [{"kind": "prediction", "text": "What happens next?", "answer": "The ball hits the wall."}]
    dataset = make_newton_set(tmp_path / "set", prompts=prediction)
    assert main(["export", "lmms-eval", dataset, "--out", str(tmp_path / "lmms")]) == 2
    assert "predict-export" in capsys.readouterr().err
