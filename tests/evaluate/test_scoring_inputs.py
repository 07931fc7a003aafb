"""Bad input to a scoring command is one line on stderr and exit 2, and nothing is written: every command that
reads a set, a run, a study, a question set, a repository or a replay file, given a missing folder, an empty one,
a selection with no questions, an unreadable replay file, an output folder voebench did not write... Each case runs
the real command line (`voebench.cli.main`) in a workspace and compares a snapshot of the whole workspace (every
file's size, mtime and bytes) before and after, so neither the output folder nor the input is touched."""

from __future__ import annotations

import hashlib
import json
import os
import shutil

import pytest
from contract_fixtures import complete_entry, write_dataset
from evaluate_fixtures import make_tiny_set, write_h5, write_mp4
from humans_fixtures import make_plausibility_set

import newton_repository as nr  # tests/evaluate/ is not on the path by itself
from voebench.cli import main
from voebench.contract import manifest as mf


def snapshot(root: str) -> dict[str, tuple]:
    """Every file and folder under `root`: path -> (size, mtime_ns, sha256) for files, "dir" for folders."""
    out: dict[str, tuple] = {}
    for dirpath, dirnames, filenames in os.walk(root):
        for d in dirnames:
            out[os.path.relpath(os.path.join(dirpath, d), root)] = ("dir",)
        for f in filenames:
            p = os.path.join(dirpath, f)
            st = os.stat(p)
            with open(p, "rb") as fh:
                out[os.path.relpath(p, root)] = (st.st_size, st.st_mtime_ns, hashlib.sha256(fh.read()).hexdigest())
    return out


def _choice(text: str, labels: list[str], answer: str, polarity: str, qid: str, attribute: str) -> dict:
    return {
        "kind": "choice",
        "polarity": polarity,
        "text": f"{text} Options: {', '.join(labels)}.",
        "answer": answer,
        "choices": {"labels": labels, "letters": False},
        "meta": {
            "qid": qid,
            "newton": {
                "question_id": qid,
                "track": 2,
                "qtype": "multiple_choice",
                "stream": "multiple_choice",
                "attribute": attribute,
                "polarity": polarity,
                "position": labels.index(answer) + 1,
                "n_options": len(labels),
                "agreement": None,
                "variant": "v1",
                "source": "video",
            },
        },
    }


def make_states_only_newton_set(root: str, trials: int = 2) -> str:
    """A NEWTON-suite set as `voebench render newton --states-only` writes it: ground truth, no mp4 (video null)."""
    labels = ["the red ball", "the green ball", "the blue ball"]
    entries = []
    for i in range(trials):
        rel = f"newton/elasticity/{i:05d}"
        os.makedirs(os.path.join(root, "newton", "elasticity"), exist_ok=True)
        most, least = labels[(i + 2) % 3], labels[i % 3]
        e = complete_entry(
            {
                "id": rel,
                "suite": "newton",
                "test": "elasticity",
                "index": i,
                "condition": "observed",
                "video": None,
                "states": rel + ".h5",
                "n_frames": 10,
                "fps": 10.0,
                "width": 64,
                "height": 48,
                "description": "Three balls of the same size are dropped from the same height onto a hard floor.",
                "prompts": [
                    _choice("Which object is the most elastic?", labels, most, "positive", "most", "elasticity"),
                    _choice("Which object is the least elastic?", labels, least, "negative", "least", "elasticity"),
                ],
            }
        )
        write_h5(os.path.join(root, e["states"]), e)
        entries.append(e)
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    write_dataset(root)
    return root


def make_predict_set(root: str) -> str:
    """Two predict clips (one collision, one none), as the predict suite writes them."""
    os.makedirs(os.path.join(root, "predict", "collisions"))
    entries = []
    for i, (labels, pairs) in enumerate(
        ((["red cube", "blue sphere"], [["red cube", "blue sphere"]]), (["green cube", "white sphere"], []))
    ):
        hit = {x for p in pairs for x in p}
        answer = "; ".join(f"the {a} collides with the {b}" for a, b in pairs) or "No objects collide."
        e = complete_entry(
            {
                "id": f"predict/collisions/{i:05d}",
                "suite": "predict",
                "test": "collisions",
                "index": i,
                "condition": "collision" if pairs else "no_collision",
                "video": f"predict/collisions/{i:05d}.mp4",
                "states": f"predict/collisions/{i:05d}.h5",
                "n_frames": 20,
                "fps": 10,
                "width": 64,
                "height": 48,
                "prompts": [{"kind": "prediction", "text": "q", "answer": answer}],
                "prediction": {
                    "outcome": "collision" if pairs else "no_collision",
                    "cut_frame": 9,
                    "cut_time": 0.9,
                    "event_frame": 14,
                    "objects": [
                        {
                            "name": f"object{k}",
                            "label": lab,
                            "color": lab.split()[0],
                            "shape": lab.split()[1],
                            "position_at_cut": [0.5 * k, 0.0],
                            "velocity_at_cut": [1.0, 0.0],
                        }
                        for k, lab in enumerate(labels)
                    ],
                    "collisions": [{"objects": p, "names": [], "frame": 14, "time": 1.4} for p in pairs],
                    "unhit": [x for x in labels if x not in hit],
                    "final_positions": {x: [0.0, 0.0] for x in labels},
                    "answer": answer,
                },
            }
        )
        write_mp4(os.path.join(root, e["video"]), i, n=20)
        entries.append(e)
    mf.write_manifest(os.path.join(root, mf.NAME), entries)
    write_dataset(root)
    return root


REPLAYS = {
    "notjson": b"this is not JSON\n",
    "array": b"[1, 2]\n",
    "scalar": b'"yes"\n',
    "noid": b'{"response": "Yes."}\n',
    "noanswer": b'{"sample_id": "grasp-l1/shape/00000#0"}\n',
    "badresponses": b'{"sample_id": "grasp-l1/shape/00000#0", "responses": "Yes."}\n',
    "badrepeat": b'{"sample_id": "grasp-l1/shape/00000#0", "repeat": "first", "response": "Yes."}\n',
    "binary": b"\xff\xfe\x00\x81 not text\n",
    "empty": b"",
    "blank": b"\n\n   \n",
    "unknownids": b'{"sample_id": "no/such/sample", "response": "Yes."}\n',
}


@pytest.fixture(scope="module")
def ws(tmp_path_factory) -> dict[str, str]:
    """The workspace: every input the cases name, by key (a missing path too)."""
    root = tmp_path_factory.mktemp("scoring-inputs")
    w = {"root": str(root)}

    def p(name: str) -> str:
        w[name] = str(root / name)
        return w[name]

    make_tiny_set(p("tiny"))
    os.makedirs(p("empty"))
    os.makedirs(p("only_dataset"))
    write_dataset(w["only_dataset"])
    os.makedirs(p("only_manifest"))
    shutil.copy(os.path.join(w["tiny"], mf.NAME), w["only_manifest"])
    os.makedirs(p("corrupt_set"))
    with open(os.path.join(w["corrupt_set"], mf.NAME), "w") as fh:
        fh.write("{not json\n")
    write_dataset(w["corrupt_set"])
    make_states_only_newton_set(p("states"))
    make_predict_set(p("predict"))
    make_plausibility_set(p("plaus"), {"t09_gravity": 2}, videos=True)
    os.makedirs(p("plaus_states"))  # the same pairs rendered --states-only: no mp4s
    entries = [{**e, "video": None} for e in mf.read_manifest(os.path.join(w["plaus"], mf.NAME))]
    mf.write_manifest(os.path.join(w["plaus_states"], mf.NAME), entries)
    write_dataset(w["plaus_states"])
    p("missing")
    p("replay_missing")
    os.makedirs(p("foreign"))
    with open(os.path.join(w["foreign"], "notes.txt"), "w") as fh:
        fh.write("my own notes\n")
    for name, data in REPLAYS.items():
        with open(p(f"replay_{name}"), "wb") as fh:
            fh.write(data)
    # a NEWTON question set and its repository
    nr.write(p("repo") + ".csv")
    assert main(["newton", "generate", "--repository", w["repo"] + ".csv", "--track", "2", "--n", "6",
                 "--out", p("qset")]) == 0  # fmt: skip
    with open(p("repo_empty") + ".csv", "w") as fh:
        fh.write("")
    with open(p("repo_binary") + ".csv", "wb") as fh:
        fh.write(b"\xff\xfe\x00\x81garbage")
    os.makedirs(p("qset_empty"))
    shutil.copytree(w["qset"], p("qset_corrupt"))
    with open(os.path.join(w["qset_corrupt"], "questions.jsonl"), "w") as fh:
        fh.write("{broken\n")
    # runs: a finished one, an empty folder, and a finished one whose samples.jsonl is corrupt
    assert main(["evaluate", w["tiny"], "--model", "fake:yes", "--out", p("run"), "--repeats", "1",
                 "--no-progress"]) == 0  # fmt: skip
    os.makedirs(p("run_empty"))
    os.makedirs(p("surprise_run_cut"))  # a world-model run killed before its first video was written whole
    with open(os.path.join(w["surprise_run_cut"], "surprise.jsonl"), "w") as fh:
        fh.write('{"id": "grasp-l2/t09_gravity/00000-plaus')
    shutil.copytree(w["run"], p("run_corrupt"))
    with open(os.path.join(w["run_corrupt"], "samples.jsonl"), "w") as fh:
        fh.write("{broken\n")
    assert main(["predict", w["predict"], "--model", "fake:oracle", "--out", p("predict_run")]) == 0
    # a human study (created, no answers), an empty study folder, a study whose database is not SQLite
    assert main(["humans", "serve", w["plaus"], "--study", p("study"), "--protocol", "grasp", "--participants", "3",
                 "--twins", "--create-only"]) == 0  # fmt: skip
    os.makedirs(p("study_empty"))
    os.makedirs(p("study_corrupt"))
    with open(os.path.join(w["study_corrupt"], "study.sqlite3"), "wb") as fh:
        fh.write(b"not a database" * 100)
    return w


def _args(template: list[str], w: dict[str, str], case: str) -> list[str]:
    w = {**w, "out": os.path.join(w["root"], f"out-{case}")}
    return [a.format(**w) for a in template]


EVAL = ["evaluate", "{tiny}", "--model", "fake:yes", "--out", "{out}", "--repeats", "1", "--no-progress"]


def evaluate_on(dataset: str, *extra: str) -> list[str]:
    return ["evaluate", dataset, "--model", "fake:yes", "--out", "{out}", "--repeats", "1", "--no-progress", *extra]


def replay(name: str) -> list[str]:
    return ["evaluate", "{tiny}", "--model", f"replay:{{replay_{name}}}", "--out", "{out}", "--repeats", "1",
            "--no-progress"]  # fmt: skip


def predict_on(dataset: str, *extra: str) -> list[str]:
    return ["predict", dataset, "--model", "fake:oracle", "--out", "{out}", *extra]


def humans_serve(set_dir: str, study: str) -> list[str]:
    return ["humans", "serve", set_dir, "--study", study, "--protocol", "grasp", "--participants", "3", "--twins",
            "--create-only"]  # fmt: skip


def world_model(dataset: str, out: str, *extra: str) -> list[str]:
    return ["evaluate", dataset, "--model", "vjepa2-random:tiny", "--out", out, "--no-progress", *extra]


def train_baseline(dataset: str, out: str, category: str = "A") -> list[str]:
    return ["train-baseline", dataset, "--category", category, "--out", out]


CASES = {
    # voebench evaluate
    "evaluate-missing-set": (evaluate_on("{missing}"), "no manifest.jsonl"),
    "evaluate-empty-set": (evaluate_on("{empty}"), "no manifest.jsonl"),
    "evaluate-no-dataset-json": (evaluate_on("{only_manifest}"), "no dataset.json"),
    "evaluate-no-manifest": (evaluate_on("{only_dataset}"), "no manifest.jsonl"),
    "evaluate-corrupt-manifest": (evaluate_on("{corrupt_set}"), "manifest.jsonl"),
    "evaluate-no-such-test": (evaluate_on("{tiny}", "--tests", "nosuch"), "no such test"),
    "evaluate-test-name-with-a-line-break": (evaluate_on("{tiny}", "--tests", "no\nsuch"), "no such test"),
    "evaluate-no-such-suite": (evaluate_on("{tiny}", "--suite", "nosuch"), "not in this set"),
    "evaluate-no-question-of-strategy": (
        evaluate_on("{tiny}", "--tests", "movement", "--strategy", "open"),
        "no such questions",
    ),
    "evaluate-out-under-a-file": (
        evaluate_on("{tiny}")[:5] + ["{tiny}/manifest.jsonl/run", "--no-progress"],
        "is a file",
    ),
    "evaluate-foreign-out": (evaluate_on("{tiny}")[:5] + ["{foreign}", "--no-progress"], "voebench did not write"),
    "evaluate-out-is-a-predict-run": (evaluate_on("{tiny}")[:5] + ["{predict_run}", "--no-progress"], "a predict run"),
    "predict-out-is-an-evaluate-run": (predict_on("{predict}")[:5] + ["{run}"], "an evaluate run"),
    "humans-export-out-is-an-evaluate-run": (["humans", "export", "{study}", "--out", "{run}"], "an evaluate run"),
    "surprise-out-is-an-evaluate-run": (world_model("{tiny}", "{run}"), "an evaluate run"),
    "evaluate-out-is-a-set": (evaluate_on("{tiny}")[:5] + ["{plaus}", "--no-progress"], "voebench did not write"),
    "evaluate-states-only-video-strategy": (evaluate_on("{states}"), "--strategy text"),
    "evaluate-states-only-cot": (evaluate_on("{states}", "--strategy", "cot"), "--strategy text"),
    "evaluate-missing-replay": (replay("missing"), "no such file"),
    "evaluate-replay-is-a-folder": (
        ["evaluate", "{tiny}", "--model", "replay:{empty}", "--out", "{out}", "--no-progress"],
        "no such file",
    ),
    **{f"evaluate-replay-{name}": (replay(name), "replay") for name in REPLAYS},
    "evaluate-question-set-empty-folder": (evaluate_on("{qset_empty}"), "no manifest.jsonl"),
    "evaluate-question-set-corrupt": (evaluate_on("{qset_corrupt}"), "questions.jsonl"),
    # voebench report
    "report-missing-run": (["report", "{missing}"], "no such run directory"),
    "report-empty-folder": (["report", "{run_empty}"], "is not a voebench run"),
    "report-a-set": (["report", "{tiny}"], "is not a voebench run"),
    "report-foreign-folder": (["report", "{foreign}"], "is not a voebench run"),
    "report-corrupt-samples": (["report", "{run_corrupt}"], "samples.jsonl"),
    "report-world-model-run-without-records": (["report", "{surprise_run_cut}"], "holds no readable records"),
    "report-a-predict-run": (["report", "{predict_run}"], "is a predict run"),
    "report-one-good-one-missing": (["report", "{run}", "{missing}"], "no such run directory"),
    # voebench predict / predict-export
    "predict-missing-set": (predict_on("{missing}"), "no manifest.jsonl"),
    "predict-empty-set": (predict_on("{empty}"), "no manifest.jsonl"),
    "predict-no-predict-videos": (predict_on("{tiny}"), "no predict videos"),
    "predict-out-under-a-file": (predict_on("{predict}")[:5] + ["{predict}/manifest.jsonl/run"], "is a file"),
    "predict-foreign-out": (predict_on("{predict}")[:5] + ["{foreign}"], "voebench did not write"),
    "predict-replay-notjson": (
        ["predict", "{predict}", "--model", "replay:{replay_notjson}", "--out", "{out}"],
        "replay",
    ),
    "predict-replay-unknownids": (
        ["predict", "{predict}", "--model", "replay:{replay_unknownids}", "--out", "{out}"],
        "answers none of the",
    ),
    "predict-judge-replay-empty": (
        predict_on("{predict}", "--judge", "replay:{replay_empty}"),
        "replay",
    ),
    "predict-judge-missing-replay": (predict_on("{predict}", "--judge", "replay:{missing}"), "no such file"),
    "predict-export-missing-set": (["predict-export", "{missing}", "--out", "{out}"], "no manifest.jsonl"),
    "predict-export-foreign-out": (["predict-export", "{predict}", "--out", "{foreign}"], "voebench did not write"),
    # voebench export lmms-eval (a task folder of a set)
    "export-lmms-eval-foreign-out": (["export", "lmms-eval", "{tiny}", "--out", "{foreign}"], "voebench did not write"),
    "export-lmms-eval-missing-set": (["export", "lmms-eval", "{missing}", "--out", "{out}"], "no manifest.jsonl"),
    # voebench newton
    "newton-missing-repository": (
        ["newton", "generate", "--repository", "{missing}", "--track", "2", "--n", "4", "--out", "{out}"],
        "{missing}",
    ),
    "newton-repository-is-a-folder": (
        ["newton", "generate", "--repository", "{empty}", "--track", "2", "--n", "4", "--out", "{out}"],
        "{empty}",
    ),
    "newton-empty-repository": (
        ["newton", "generate", "--repository", "{repo_empty}.csv", "--track", "2", "--n", "4", "--out", "{out}"],
        "repo_empty.csv",
    ),
    "newton-binary-repository": (
        ["newton", "generate", "--repository", "{repo_binary}.csv", "--track", "2", "--n", "4", "--out", "{out}"],
        "repo_binary.csv",
    ),
    "newton-foreign-out": (
        ["newton", "generate", "--repository", "{repo}.csv", "--track", "2", "--n", "4", "--out", "{foreign}"],
        "voebench newton did not write",
    ),
    # voebench humans
    "humans-export-missing-study": (["humans", "export", "{missing}", "--out", "{out}"], "no such study folder"),
    "humans-export-empty-study": (["humans", "export", "{study_empty}", "--out", "{out}"], "no study here"),
    "humans-export-corrupt-study": (["humans", "export", "{study_corrupt}", "--out", "{out}"], "study.sqlite3"),
    "humans-export-out-under-a-file": (
        ["humans", "export", "{study}", "--out", "{tiny}/manifest.jsonl/x"],
        "is a file",
    ),
    "humans-export-foreign-out": (["humans", "export", "{study}", "--out", "{foreign}"], "voebench did not write"),
    "humans-links-missing-study": (["humans", "links", "{missing}"], "no study here"),
    "humans-links-empty-study": (["humans", "links", "{study_empty}"], "no study here"),
    "humans-serve-missing-set": (
        humans_serve("{missing}", "{out}"),
        "no manifest.jsonl",
    ),
    "humans-serve-empty-set": (
        humans_serve("{empty}", "{out}"),
        "no manifest.jsonl",
    ),
    "humans-serve-study-under-a-file": (humans_serve("{plaus}", "{plaus}/manifest.jsonl/study"), "is a file"),
    "humans-serve-states-only-set": (humans_serve("{plaus_states}", "{out}"), "--states-only"),
    "evaluate-states-only-pairs": (evaluate_on("{plaus_states}"), "--strategy text"),
    "surprise-states-only-pairs": (world_model("{plaus_states}", "{out}"), "states-only"),
    "humans-serve-foreign-study": (
        humans_serve("{plaus}", "{foreign}"),
        "voebench did not write",
    ),
    # world models (voebench evaluate --model vjepa2-random:tiny)
    "surprise-missing-set": (
        world_model("{missing}", "{out}"),
        "no manifest.jsonl",
    ),
    "surprise-empty-set": (
        world_model("{empty}", "{out}"),
        "no manifest.jsonl",
    ),
    "surprise-no-such-test": (
        world_model("{tiny}", "{out}", "--tests", "nosuch"),
        "no such test",
    ),
    "surprise-states-only": (
        world_model("{states}", "{out}"),
        "states-only",
    ),
    "surprise-out-under-a-file": (world_model("{tiny}", "{tiny}/manifest.jsonl/run"), "is a file"),
    "surprise-foreign-out": (
        world_model("{tiny}", "{foreign}"),
        "voebench did not write",
    ),
    # train-baseline's data argument
    "train-baseline-missing-set": (train_baseline("{missing}", "{out}"), "no manifest.jsonl"),
    "train-baseline-empty-set": (train_baseline("{empty}", "{out}"), "no manifest.jsonl"),
    "train-baseline-no-avoe": (train_baseline("{tiny}", "{out}", "B"), "category B"),
    "train-baseline-out-under-a-file": (train_baseline("{tiny}", "{tiny}/manifest.jsonl/x"), "is a file"),
    "train-baseline-foreign-out": (train_baseline("{tiny}", "{foreign}"), "voebench did not write"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_bad_input_is_one_line_exit_2_and_nothing_written(ws, case, capsys):
    template, needle = CASES[case]
    args = _args(template, ws, case)
    out = os.path.join(ws["root"], f"out-{case}")
    before = snapshot(ws["root"])
    capsys.readouterr()
    try:
        rc = main(args)
    except SystemExit as e:  # argparse's own errors exit from inside the parser
        rc = e.code
    err = capsys.readouterr().err
    lines = err.strip().splitlines()
    assert rc == 2, (rc, err)
    assert len(lines) == 1, err
    assert "Traceback" not in err and lines[0].startswith(f"voebench {args[0]}"), err
    assert needle.format(**ws) in lines[0], err
    assert not os.path.exists(out)
    assert snapshot(ws["root"]) == before, "a refused command changed the workspace"


def test_text_strategy_scores_a_states_only_set(ws, tmp_path):
    """The text-only control needs no pixels: a --states-only NEWTON set is scored from its descriptions."""
    out = str(tmp_path / "run")
    args = ["evaluate", ws["states"], "--model", "fake:oracle", "--strategy", "text", "--out", out, "--repeats", "1",
            "--no-progress"]  # fmt: skip
    assert main(args) == 0
    with open(os.path.join(out, "results.json")) as fh:
        attributes = json.load(fh)["newton"]["attributes"]
    assert attributes and all(r["acc"] == 1.0 for r in attributes)


class JudgeServer:
    """A chat-completions endpoint on 127.0.0.1 that answers every request the same way: HTTP `status` with
    `content` as the message (None: no content at all)."""

    def __init__(self, status: int = 200, content: str | None = ""):
        import threading
        from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

        outer = self
        self.calls = 0

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):
                pass

            def do_POST(self):
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                outer.calls += 1
                body = json.dumps({"choices": [{"message": {"content": content}}]}).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc):
        self.httpd.shutdown()
        self.httpd.server_close()


def _predict_records(out: str) -> list[dict]:
    with open(os.path.join(out, "samples.jsonl")) as fh:
        return [json.loads(line) for line in fh if line.strip()]


def test_a_judge_that_replies_nothing_is_counted_invalid(ws, tmp_path, capsys):
    """Empty judge replies are answers the parser cannot read: every judge score is invalid, the exact scores
    stand, and the run finishes (exit 0) with a report."""
    out = str(tmp_path / "run")
    with JudgeServer(200, "") as server:
        rc = main(
            ["predict", ws["predict"], "--model", "fake:oracle", "--judge", f"openai:j@{server.url}", "--out", out]
        )
    err = capsys.readouterr().err
    assert rc == 0 and "Traceback" not in err, err
    assert server.calls == len(_predict_records(out)) > 0
    with open(os.path.join(out, "results.json")) as fh:
        groups = json.load(fh)["groups"]
    for g in groups:
        assert g["exact"]["strict"] == 1.0
        assert g["judge"]["n"] > 0 and g["judge"]["accuracy"] is None and g["judge"]["accuracy_invalid"] == 1.0


def test_a_judge_whose_calls_fail_exits_1_naming_them(ws, tmp_path, capsys):
    """A judge server that refuses every request (HTTP 400: the adapter raises): the report is written with the
    exact scores, every record keeps the judge's error, and the command says so in one line and exits 1 (running it
    again retries only those calls)."""
    out = str(tmp_path / "run")
    with JudgeServer(400, "bad request") as server:
        rc = main(
            ["predict", ws["predict"], "--model", "fake:oracle", "--judge", f"openai:j@{server.url}", "--out", out]
        )
    err = capsys.readouterr().err
    records = _predict_records(out)
    assert rc == 1 and "Traceback" not in err, err
    n, where = len(records), os.path.join(out, "samples.jsonl")
    assert [line for line in err.splitlines() if "judge calls failed" in line] == [
        f"{n} of {n} judge calls failed (see 'judge_error' in {where}); run the same command again to retry only those"
    ]
    assert all(r["judge_error"] and r["judge_scores"] is None and r["exact"]["strict"] == 1 for r in records)
    assert os.path.isfile(os.path.join(out, "report.md"))
