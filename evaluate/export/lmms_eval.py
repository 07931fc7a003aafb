"""An lmms-eval task folder for a rendered set, so lmms-eval users can run our stimuli with their models.

Layout (lmms-eval 0.7.x, external tasks via ``--include_path``; see docs/evaluate.md):

    <out>/<name>.yaml                        one task over all questions
    <out>/<name>_<suite>_<test>.yaml         one task per test (data_<suite>_<test>.jsonl)
    <out>/<name>_<suite>_<test>_<kind>.yaml  one task per test and question kind, for suites of several kinds
    <out>/groups/<name>_<suite>.yaml         a group per suite over its test tasks (lmms_eval_groups.py)
    <out>/groups/<name>_<suite>_<kind>.yaml  a group per question kind of a suite of several kinds
    <out>/utils.py                           doc_to_visual / doc_to_text / doc_to_messages / process_results
    <out>/newton_choice.py                   voebench's options reader (evaluate/newton/choice.py), verbatim
    <out>/voebench_verdict.py                the careful yes/no reader (evaluate/verdict.py), verbatim
    <out>/data.jsonl                         {id, video, frames, question, answer, kind, polarity, suite, test, ...}
    <out>/clips/...                          per video, the frames `voebench evaluate` shows (unless all frames)
    <out>/videos/...                         only with copy_videos=True and all frames

How the model is asked comes from evaluate/ask.py, the module `voebench evaluate` takes its settings from: the
frames are chosen by the same function and written as a clip holding exactly those frames (lmms-eval hands a model
a video file and lets the model's wrapper pick frames, so the choice has to be made in the file), the YAML's
`generation_kwargs` are the settings' (`max_new_tokens`, `do_sample`/`temperature` only where set, no stop string),
and the system prompt is written into `lmms_eval_specific_kwargs` (`doc_to_messages` sends it as a system message):
for `--system-prompt auto` under the lmms-eval model names of the families evaluate/prompts.py has a prompt for.

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
from voebench.evaluate import prompts
from voebench.evaluate.ask import AskSettings
from voebench.evaluate.export import lmms_eval_groups as groups
from voebench.evaluate.parsing import OPEN_CHOICES, open_family
from voebench.evaluate.tasks import Manifest, load_manifest, select_with_videos

UTILS_SOURCE = os.path.join(os.path.dirname(__file__), "lmms_eval_utils.py")
#: the options reader of choice questions, copied verbatim next to utils.py (which loads it by this name)
CHOICE_SOURCE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "newton", "choice.py")
CHOICE_COPY = "newton_choice.py"
#: the careful yes/no reader (report.md's section beside GRASP's rule), copied verbatim likewise
VERDICT_SOURCE = os.path.join(os.path.dirname(os.path.dirname(__file__)), "verdict.py")
VERDICT_COPY = "voebench_verdict.py"
CAREFUL_KINDS = ("binary", "plausibility")  # the kinds that also get careful_acc_<kind> / careful_unparsed_<kind>
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
    per_kind = tuple(m for k in kinds for m in ((f"grasp_acc_{k}", True), (f"grasp_invalid_{k}", False)))
    careful = tuple(
        m for k in kinds if k in CAREFUL_KINDS for m in ((f"careful_acc_{k}", True), (f"careful_unparsed_{k}", False))
    )
    return GRASP_METRICS + per_kind + careful


#: lmms-eval 0.7.3's registry names of the model families evaluate/prompts.py has a system prompt for, as the name
#: evaluate's rule reads (its 120 names hold no other: "videollama3" is VideoLLaMA 3, not the paper's Video-LLaMA)
LMMS_EVAL_MODEL_NAMES = {"videoChatGPT": "video-chatgpt"}


def _q(value: str | None) -> str:
    """A YAML scalar: null, or a double-quoted string (JSON's escapes are YAML's)."""
    return "null" if value is None else json.dumps(value, ensure_ascii=False)


def system_prompts(asking: AskSettings) -> dict[str, str | None]:
    """`lmms_eval_specific_kwargs` key -> system prompt: "default" for every model, and with 'auto' one key per
    lmms-eval model name whose family evaluate gives a prompt (AskSettings.system_prompt_for, the same rule)."""
    if asking.system_prompt != "auto":
        return {"default": asking.system_prompt_for("")}
    out: dict[str, str | None] = {"default": None}
    for lmms_name, family in LMMS_EVAL_MODEL_NAMES.items():
        out[lmms_name] = prompts.default_system_prompt(family)
    return out


def _generation_yaml(max_new_tokens: int, asking: AskSettings | None) -> str:
    if asking is None:  # the predict export's own settings (evaluate/predict/lmms_eval.py): greedy
        return f"  max_new_tokens: {max_new_tokens}\n  temperature: 0\n  do_sample: false\n"
    lines = []
    for k, v in asking.generation_kwargs().items():
        lines.append(f"  {k}: {json.dumps(v)}\n")  # ints, floats, booleans and [] are JSON and YAML alike
    return "".join(lines)


def _specific_yaml(asking: AskSettings | None) -> str:
    keys = system_prompts(asking) if asking is not None else {"default": None}
    out = []
    for key, prompt in keys.items():
        out.append(f'  {key}:\n    pre_prompt: ""\n    post_prompt: ""\n')
        if asking is not None:
            out.append(f"    system_prompt: {_q(prompt)}\n")
    return "".join(out)


def task_yaml(
    task: str,
    data_file: str,
    max_new_tokens: int = 16,
    metrics=GRASP_METRICS,
    asking: AskSettings | None = None,
) -> str:
    """One task's YAML. With `asking` (the GRASP export) its generation settings and system prompts are those of
    evaluate/ask.py; without (the predict export) greedy decoding of `max_new_tokens`."""
    # written by hand (not yaml.dump) because of lmms-eval's `!function` tags
    metric_list = "".join(
        f"  - metric: {m}\n    aggregation: mean\n    higher_is_better: {str(up).lower()}\n" for m, up in metrics
    )
    ask_meta = "" if asking is None else f"  voebench_ask: {json.dumps(asking.as_dict(), ensure_ascii=False)}\n"
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
{_generation_yaml(max_new_tokens, asking)}process_results: !function utils.process_results
metric_list:
{metric_list}lmms_eval_specific_kwargs:
{_specific_yaml(asking)}metadata:
  version: {"0.1" if asking is None else "0.2"}
{ask_meta}"""


def _visual(manifest: Manifest, e: dict, out_dir: str, asking: AskSettings, copy_videos: bool) -> tuple[str, list]:
    """The video file a model is shown (relative to the task folder) and the frame indices of the original it holds:
    a clip of exactly the frames `voebench evaluate` samples (frames.sample_frame_indices through AskSettings),
    playing in the original's time; the original itself (or its copy) where the settings take every frame."""
    from voebench.evaluate import frames as frames_mod  # numpy

    v = manifest.video(e)
    indices = asking.frame_indices(v.n_frames, v.fps)
    if len(indices) < v.n_frames:
        dst = os.path.join(out_dir, "clips", os.path.splitext(e["video"])[0] + ".mp4")
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        clip = frames_mod.read_frames(v.path, indices)
        with open(dst, "wb") as fh:
            fh.write(frames_mod.encode_mp4(clip, len(indices) * v.fps / v.n_frames))
        return os.path.relpath(dst, out_dir), indices
    if copy_videos:
        dst = os.path.join(out_dir, "videos", e["video"])
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copy2(v.path, dst)
        return os.path.relpath(dst, out_dir), indices
    return os.path.relpath(v.path, out_dir), indices


def _docs(manifest: Manifest, entries: list[dict], out_dir: str, asking: AskSettings, **opts) -> list[dict]:
    """One document per exported question of `entries` (module docstring)."""
    docs: list[dict] = []
    for e in entries:
        wanted = [
            p for p in e["prompts"] if p["kind"] in EXPORTED_KINDS and (p["kind"] != "open" or opts["include_open"])
        ]
        if not wanted:
            continue
        video, indices = _visual(manifest, e, out_dir, asking, opts["copy_videos"])
        for p in wanted:
            doc = {
                "id": None,
                "video_id": e["id"],
                "suite": e["suite"],
                "test": e["test"],
                "video": video,
                "source_video": e["video"],  # as the manifest names it
                "frames": indices,  # of the source video, as `voebench evaluate` logs them per sample
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
    return docs


def _check_names(name: str, entries: list[dict]) -> None:
    """UsageError if two tasks or groups would get one name (suite and test names are slugged: "a-b" and "a_b"
    collide), before anything is written."""
    names: list[str] = [name]
    for suite in sorted({e["suite"] for e in entries}):
        names.append(f"{name}_{_slug(suite)}")
        names += [f"{name}_{_slug(suite)}_{k}" for k in EXPORTED_KINDS]
        for test in sorted({e["test"] for e in entries if e["suite"] == suite}):
            names.append(f"{name}_{_slug(suite)}_{_slug(test)}")
            names += [f"{name}_{_slug(suite)}_{_slug(test)}_{k}" for k in EXPORTED_KINDS]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise UsageError(f"task or group names would collide ({', '.join(twice[:3])}): export the suites apart")


def export_lmms_eval(
    dataset_dir: str,
    out_dir: str,
    name: str = "voebench",
    suites: list[str] | None = None,
    tests: list[str] | None = None,
    limit: int | None = None,
    copy_videos: bool = False,
    include_open: bool = True,
    complete_pairs_only: bool = False,
    asking: AskSettings | None = None,
) -> dict:
    """Write the task folder; `asking`: how models are asked (default: `voebench evaluate`'s defaults)."""
    asking = asking or AskSettings()
    if not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise UsageError(f"--name {name!r}: use letters, digits and underscores (it becomes a task name)")
    asking.system_prompt_for("")  # an @file that is not there is refused before anything is written
    manifest = load_manifest(dataset_dir)
    entries = select_with_videos(
        manifest, dataset_dir, "lmms-eval tasks show videos", suites, tests, limit, complete_pairs_only
    )
    _check_names(name, entries)
    out_dir = os.path.abspath(out_dir)
    os.makedirs(out_dir, exist_ok=True)
    docs = _docs(manifest, entries, out_dir, asking, include_open=include_open, copy_videos=copy_videos)
    if not docs:
        raise UsageError(
            "nothing to export: no question of the selection is single-turn yes/no, open or choice "
            "(predict-suite sets: voebench predict-export)"
        )

    def write_task(task: str, data_file: str, rows: list[dict]) -> None:
        with open(os.path.join(out_dir, data_file), "w", encoding="utf-8") as fh:
            for d in rows:
                fh.write(json.dumps(d, ensure_ascii=False) + "\n")
        with open(os.path.join(out_dir, f"{task}.yaml"), "w", encoding="utf-8") as fh:
            fh.write(task_yaml(task, data_file, asking.max_new_tokens, task_metrics(rows), asking))
        written["tasks"].append(task)
        written["data"].append(data_file)

    written: dict[str, Any] = {"tasks": [], "data": [], "groups": [], "docs": len(docs), "ask": asking.as_dict()}
    write_task(name, "data.jsonl", docs)
    per: dict[tuple, list[dict]] = {}
    for d in docs:
        per.setdefault((d["suite"], d["test"]), []).append(d)
    suite_tasks: dict[str, list[str]] = {}
    kind_tasks: dict[tuple[str, str], list[str]] = {}
    suite_kinds = {s: {d["kind"] for d in docs if d["suite"] == s} for s in {d["suite"] for d in docs}}
    for (suite, test), rows in sorted(per.items()):
        slug = f"{_slug(suite)}_{_slug(test)}"
        write_task(f"{name}_{slug}", f"data_{slug}.jsonl", rows)
        suite_tasks.setdefault(suite, []).append(f"{name}_{slug}")
        if len(suite_kinds[suite]) < 2:
            continue
        for kind in EXPORTED_KINDS:  # a suite of several kinds: a task per test and kind, for the kind groups
            of_kind = [d for d in rows if d["kind"] == kind]
            if of_kind:
                write_task(f"{name}_{slug}_{kind}", f"data_{slug}_{kind}.jsonl", of_kind)
                kind_tasks.setdefault((suite, kind), []).append(f"{name}_{slug}_{kind}")
    written["groups"] = groups.write_groups(out_dir, name, suite_tasks, kind_tasks, _slug)
    shutil.copyfile(UTILS_SOURCE, os.path.join(out_dir, "utils.py"))
    shutil.copyfile(CHOICE_SOURCE, os.path.join(out_dir, CHOICE_COPY))
    shutil.copyfile(VERDICT_SOURCE, os.path.join(out_dir, VERDICT_COPY))
    return written
