"""An lmms-eval task folder for a rendered set, so lmms-eval users can run our stimuli with their models.

Layout (lmms-eval 0.7.x, external tasks via ``--include_path``; see docs/evaluate.md):

    <out>/<name>.yaml                 one task over all questions
    <out>/<name>_<suite>_<test>.yaml  one task per test (data_<suite>_<test>.jsonl)
    <out>/utils.py                    doc_to_visual / doc_to_text / doc_to_messages / process_results
    <out>/newton_choice.py            voebench's options reader (evaluate/newton/choice.py), verbatim
    <out>/data.jsonl                  {id, video, question, answer, kind, polarity, suite, test, choices (JSON), ...}
    <out>/videos/...                  only with copy_videos=True

Pitfalls handled (ray-lmms-eval-notes A.3-A.5): `dataset_path: json` with a `data_files` path relative to the
YAML's folder; video paths in the data are relative to the folder and resolved in utils.py (lmms-eval does not
rewrite them); metric names equal the keys `process_results` returns; both `doc_to_visual` (simple models) and
`doc_to_messages` (chat models) are given. lmms-eval's CLI exits 0 even on failure: run it with
``--verbosity DEBUG`` and check that the results JSON exists. Only single-turn (zero-shot and open) questions are
exported: lmms-eval tasks have no multi-turn conversations.

Choice questions (the `newton` suite, docs/newton.md) keep their answer label as written ("the red ball", "True"),
carry `choices` = {"labels", "letters"} and are scored by the options reader of evaluate/newton/choice.py; each
gets the sample id `voebench evaluate` gives it (`<video>#<qid>`), since a video asks several. Prompt kinds
without a single-turn scorer here (the predict suite's `prediction`, exported by `voebench predict-export`) are
left out.
"""

from __future__ import annotations

import json
import os
import re
import shutil
from typing import Any

from voebench.errors import UsageError
from voebench.evaluate.parsing import OPEN_CHOICES, open_family
from voebench.evaluate.tasks import load_manifest, select

UTILS_SOURCE = os.path.join(os.path.dirname(__file__), "lmms_eval_utils.py")
#: the options reader of choice questions, copied verbatim next to utils.py (which loads it by this name)
CHOICE_SOURCE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "newton", "choice.py")
CHOICE_COPY = "newton_choice.py"
METRICS = ("grasp_acc", "grasp_invalid")  # pooled; per kind also grasp_acc_<kind> / grasp_invalid_<kind>
EXPORTED_KINDS = ("binary", "plausibility", "open", "choice")  # what utils.process_results can score


def _slug(s: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", s.lower()).strip("_")


# (metric, higher is better): what utils.process_results returns for every question
GRASP_METRICS = (("grasp_acc", True), ("grasp_invalid", False))


def task_metrics(docs: list[dict]) -> tuple[tuple[str, bool], ...]:
    """The pooled metrics and, per question kind the task holds (in EXPORTED_KINDS order), `grasp_acc_<kind>` and
    `grasp_invalid_<kind>`: utils.process_results returns those only for a question of that kind, so each is
    that kind's mean, as `voebench report` groups by (suite, test, kind). lmms-eval needs every returned key listed,
    and lists only kinds present (a metric no document returns would have nothing to aggregate)."""
    kinds = [k for k in EXPORTED_KINDS if any(d["kind"] == k for d in docs)]
    return GRASP_METRICS + tuple(m for k in kinds for m in ((f"grasp_acc_{k}", True), (f"grasp_invalid_{k}", False)))


def task_yaml(task: str, data_file: str, max_new_tokens: int = 16, metrics=GRASP_METRICS) -> str:
    # written by hand (not yaml.dump) because of lmms-eval's `!function` tags
    metric_list = "".join(
        f"  - metric: {m}\n    aggregation: mean\n    higher_is_better: {str(up).lower()}\n" for m, up in metrics
    )
    return f"""task: {task}
dataset_path: json
dataset_kwargs:
  data_files:
    test: {data_file}
test_split: test
output_type: generate_until
doc_to_visual: !function utils.doc_to_visual
doc_to_text: !function utils.doc_to_text
doc_to_messages: !function utils.doc_to_messages
doc_to_target: answer
generation_kwargs:
  max_new_tokens: {max_new_tokens}
  temperature: 0
  do_sample: false
process_results: !function utils.process_results
metric_list:
{metric_list}lmms_eval_specific_kwargs:
  default:
    pre_prompt: ""
    post_prompt: ""
metadata:
  version: 0.1
"""


def export_lmms_eval(
    dataset_dir: str,
    out_dir: str,
    name: str = "voebench",
    suites: list[str] | None = None,
    tests: list[str] | None = None,
    limit: int | None = None,
    copy_videos: bool = False,
    include_open: bool = True,
    max_new_tokens: int = 16,
    complete_pairs_only: bool = False,
) -> dict:
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise UsageError(f"--name {name!r}: use letters, digits and underscores (it becomes a task name)")
    manifest = load_manifest(dataset_dir)
    entries = select(manifest, suites, tests, limit, complete_pairs_only=complete_pairs_only)
    if not entries:
        raise UsageError("nothing to export: the selection is empty")
    out_dir = os.path.abspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    docs: list[dict] = []
    for e in entries:
        src = os.path.join(manifest.root, e["video"])
        if copy_videos:
            dst = os.path.join(out_dir, "videos", e["video"])
            os.makedirs(os.path.dirname(dst), exist_ok=True)
            shutil.copy2(src, dst)
            video = os.path.relpath(dst, out_dir)
        else:
            video = os.path.relpath(src, out_dir)
        for p in e["prompts"]:
            if p["kind"] not in EXPORTED_KINDS or (p["kind"] == "open" and not include_open):
                continue
            doc = {
                "id": None,
                "video_id": e["id"],
                "suite": e["suite"],
                "test": e["test"],
                "video": video,
                "question": p["text"],
                "answer": str(p["answer"]).lower() if p["kind"] in ("binary", "plausibility") else p["answer"],
                "kind": p["kind"],
                "polarity": None,
                "choices": "",
                "direction": False,
            }
            if p["kind"] == "open":
                fam = open_family(e["test"])
                choices = p.get("choices") or OPEN_CHOICES.get(fam or "")
                if not choices:
                    continue
                # a JSON string: the `json` dataset builder would merge dicts of different keys into one struct
                doc["choices"] = json.dumps(choices)
                doc["direction"] = fam == "direction"
                doc["id"] = f"{e['id']}#open"
            elif p["kind"] == "choice":
                # labels are matched as written (case-insensitively) by the parser, and "True"/"False" or "the red
                # ball" is what the report prints: no lower-casing here
                doc["answer"] = str(p["answer"])
                doc["choices"] = json.dumps(p["choices"])
                doc["polarity"] = p.get("polarity")
                # the id `voebench evaluate` gives the sample (tasks._sample_id), so runs can be compared by id
                doc["id"] = f"{e['id']}#{(p.get('meta') or {}).get('qid', 'choice')}"
            else:
                pol = p.get("polarity") or ("positive" if str(p["answer"]).lower() == "yes" else "negative")
                doc["polarity"] = pol
                doc["id"] = f"{e['id']}#{p['kind']}" + (f"-{pol}" if p["kind"] == "binary" else "")
            docs.append(doc)

    if not docs:
        raise UsageError(
            "nothing to export: no question of the selection is single-turn yes/no, open or choice "
            "(predict-suite sets: voebench predict-export)"
        )

    def write_jsonl(path: str, rows: list[dict]) -> None:
        with open(path, "w", encoding="utf-8") as fh:
            for d in rows:
                fh.write(json.dumps(d, ensure_ascii=False) + "\n")

    written: dict[str, Any] = {"tasks": [], "data": [], "docs": len(docs)}
    write_jsonl(os.path.join(out_dir, "data.jsonl"), docs)
    with open(os.path.join(out_dir, f"{name}.yaml"), "w", encoding="utf-8") as fh:
        fh.write(task_yaml(name, "data.jsonl", max_new_tokens, task_metrics(docs)))
    written["tasks"].append(name)
    written["data"].append("data.jsonl")
    per: dict[tuple, list[dict]] = {}
    for d in docs:
        per.setdefault((d["suite"], d["test"]), []).append(d)
    for (suite, test), rows in sorted(per.items()):
        slug = f"{_slug(suite)}_{_slug(test)}"
        data_file = f"data_{slug}.jsonl"
        write_jsonl(os.path.join(out_dir, data_file), rows)
        task = f"{name}_{slug}"
        with open(os.path.join(out_dir, f"{task}.yaml"), "w", encoding="utf-8") as fh:
            fh.write(task_yaml(task, data_file, max_new_tokens, task_metrics(rows)))
        written["tasks"].append(task)
        written["data"].append(data_file)
    shutil.copyfile(UTILS_SOURCE, os.path.join(out_dir, "utils.py"))
    shutil.copyfile(CHOICE_SOURCE, os.path.join(out_dir, CHOICE_COPY))
    return written
