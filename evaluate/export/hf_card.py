"""The dataset card (README.md) of an hf-dataset export (hf_dataset.py): a YAML header a hub and `datasets` read,
then what the folder holds, how it was made and what to cite.

The header carries `configs` (one per suite, one per test, and `all`, the default, so `load_dataset(DIR)` needs no
name), each with its `data_files` per split as explicit file lists (a glob that matches nothing fails to load);
`license`, `task_categories`, `tags`, `language`, `size_categories`, `pretty_name`. The body says which voebench
made the videos with which settings (each suite's `identity` from dataset.json) and the code fingerprints
(`identity.code`: the core's and each test's scene hash, docs/schema.md), so a reader can tell two exports apart.

License: the videos and states are voebench's own renders: procedural geometry and procedural textures
(generator/textures.py), no third-party image, mesh or texture file (docs/differences.md); voebench is MIT-licensed
(pyproject.toml), so the card says `mit`. The source papers' own stimuli are not included; their papers are cited.
"""

from __future__ import annotations

import json

import yaml

from voebench import __version__

#: the papers a suite re-implements (bibliographic data: docs/level1.md, docs/avoe.md, docs/newton.md and the papers)
CITATIONS = {
    "grasp": """@inproceedings{jassim2024grasp,
  title     = {{GRASP}: A Novel Benchmark for Evaluating Language {GR}ounding and Situated Physics Understanding in
               Multimodal Language Models},
  author    = {Jassim, Serwan and Holubar, Mario and Richter, Annika and Wolff, Cornelius and Ohmer, Xenia and
               Bruni, Elia},
  booktitle = {Proceedings of the Thirty-Third International Joint Conference on Artificial Intelligence (IJCAI)},
  year      = {2024},
  note      = {arXiv:2311.09048}
}""",
    "avoe": """@article{dasgupta2021avoe,
  title   = {A Benchmark for Modeling Violation-of-Expectation in Physical Reasoning Across Event Categories},
  author  = {Dasgupta, Arijit and Duan, Jiafei and Ang Jr, Marcelo H. and Lin, Yi and Wang, Su-hua and
             Baillargeon, Ren{\\'e}e and Tan, Cheston},
  journal = {arXiv preprint arXiv:2111.08826},
  year    = {2021}
}""",
    "newton": """@inproceedings{wang2023newton,
  title     = {{NEWTON}: Are Large Language Models Capable of Physical Reasoning?},
  author    = {Wang, Yi Ru and Duan, Jiafei and Fox, Dieter and Srinivasa, Siddhartha},
  booktitle = {Findings of the Association for Computational Linguistics: EMNLP 2023},
  year      = {2023},
  note      = {arXiv:2310.07018}
}""",
}
#: suite -> the CITATIONS key of the paper it re-implements (suites not named here are voebench's own)
SUITE_PAPER = {"grasp-l1": "grasp", "grasp-l2": "grasp", "avoe": "avoe", "newton": "newton"}
SUITE_TITLE = {
    "grasp-l1": "GRASP Level 1 (grounding: yes/no statements and open questions about the video)",
    "grasp-l2": "GRASP Level 2 (intuitive physics: plausible/implausible pairs)",
    "avoe": "AVoE (violation of expectation across five event categories: expected/surprising pairs)",
    "newton": "NEWTON-style attribute questions shown through motion (choice questions)",
    "predict": "predict (what happens after the cut; voebench's own suite)",
}
TAGS = ["physics", "intuitive-physics", "violation-of-expectation", "synthetic", "video", "blender", "voebench"]


def size_category(n: int) -> str:
    """The hub's `size_categories` bucket of `n` rows."""
    for limit, name in ((1_000, "n<1K"), (10_000, "1K<n<10K"), (100_000, "10K<n<100K"), (1_000_000, "100K<n<1M")):
        if n < limit:
            return name
    return "1M<n<10M"


def split_key(split: str) -> tuple:
    """Splits in the order a reader expects: train, validation, test, then any other by name."""
    return (split != "train", split != "validation", split != "test", split)


def _files(keys: list[tuple[str, str]], layout: dict[tuple[str, str], list[str]]) -> list[dict]:
    """`data_files` of a config over the tests `keys`: per split, the list of its files."""
    splits = sorted({sp for k in keys for sp in layout[k]}, key=split_key)
    return [
        {"split": sp, "path": [f"data/{s}/{t}/{sp}.jsonl" for (s, t) in keys if sp in layout[(s, t)]]} for sp in splits
    ]


def header(names: dict[tuple[str, str], str], layout: dict[tuple[str, str], list[str]], n_rows: int) -> dict:
    """The card's YAML header (module docstring)."""
    keys = list(names)
    suites = sorted({s for s, _ in keys})
    configs = [{"config_name": "all", "data_files": _files(keys, layout), "default": True}]
    configs += [{"config_name": s, "data_files": _files([k for k in keys if k[0] == s], layout)} for s in suites]
    configs += [{"config_name": names[k], "data_files": _files([k], layout)} for k in keys]
    return {
        "pretty_name": "voebench: " + ", ".join(suites),
        "license": "mit",
        "language": ["en"],
        "task_categories": ["video-text-to-text", "visual-question-answering"],
        "tags": TAGS + [s for s in suites if s not in TAGS],
        "size_categories": [size_category(n_rows)],
        "configs": configs,
    }


def _table(head: list[str], rows: list[list]) -> str:
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(str(c) for c in r) + " |" for r in rows]
    return "\n".join(out)


def card(
    names: dict[tuple[str, str], str],
    layout: dict[tuple[str, str], list[str]],
    rows: dict[tuple[str, str, str], list[dict]],
    dataset: dict,
    columns: tuple[tuple[str, str, str], ...],
    summary: dict,
) -> str:
    """The whole README.md."""
    n_rows = sum(len(v) for v in rows.values())
    head = yaml.safe_dump(header(names, layout, n_rows), sort_keys=False, allow_unicode=True, width=1000)
    suites = sorted({s for s, _ in names})
    videos = {k: len({r["video_id"] for (s, t, _), v in rows.items() if (s, t) == k for r in v}) for k in names}
    per = {k: sum(len(v) for (s, t, _), v in rows.items() if (s, t) == k) for k in names}
    config_rows = [["`all` (default)", sum(videos.values()), n_rows, ", ".join(_splits(list(names), layout))]]
    for s in suites:
        ks = [k for k in names if k[0] == s]
        config_rows.append(
            [f"`{s}`", sum(videos[k] for k in ks), sum(per[k] for k in ks), ", ".join(_splits(ks, layout))]
        )
    for k, name in names.items():
        config_rows.append([f"`{name}`", videos[k], per[k], ", ".join(layout[k])])
    first = next(iter(names.values()))
    parts = [
        f"---\n{head}---\n",
        f"# voebench: {', '.join(suites)}\n",
        f"Violation-of-expectation physics videos rendered with Blender by voebench {__version__}, with exact "
        "answers read from each video's ground truth. Suites:\n",
        "\n".join(f"- `{s}`: {SUITE_TITLE.get(s, s)}" for s in suites) + "\n",
        "## Configs\n",
        "One row per question (a video without a question has one row with empty question fields). The default "
        "config `all` holds every row; each suite and each test has its own.\n",
        _table(["config", "videos", "rows", "splits"], config_rows) + "\n",
        "## Loading\n",
        "```python\nimport os\nfrom datasets import load_dataset\n\n"
        f'ds = load_dataset("path/to/this/folder", "{first}", split="{layout[next(iter(names))][0]}")\n'
        'row = ds[0]\nvideo = os.path.join("path/to/this/folder", row["video"])   # paths are relative to the folder\n'
        "```\n",
        "Videos and ground truth are files of this folder named by the rows (`video`, `states`), not bytes in the "
        "table: a question row does not repeat its video, and no video decoder is needed to load the table. The "
        "states are HDF5 files (depth, segmentation, object tracks, camera; the schema is voebench's "
        'docs/schema.md). Nested values are JSON text (`json.loads(row["parameters"])`).\n',
        "## Columns\n",
        _table(["column", "type", "meaning"], [[f"`{c}`", t, m] for c, t, m in columns]) + "\n",
        "## How it was made\n",
        "Rendered by `voebench render <suite> --out SET` and exported by `voebench export hf-dataset SET --out DIR` "
        f"(voebench {summary['voebench_version']}; selection {json.dumps(summary['selection'])}). `dataset.json` "
        "here is the set's own record. Per suite, the settings that make two renders the same dataset and the "
        "generator fingerprint (hashes of the code that made the videos: `core`, and one per test):\n",
    ]
    for s in suites:
        parts.append(f"### `{s}`\n\n" + _identity(dataset, s, sorted(t for (su, t) in names if su == s)))
    papers = sorted({SUITE_PAPER[s] for s in suites if s in SUITE_PAPER})
    parts += [
        "## License\n",
        "MIT, as voebench itself. Every video and state file is voebench's own render: procedural geometry, "
        "procedural textures and Blender's built-in shading, with no third-party image, mesh or texture file. The "
        "original GRASP, AVoE and NEWTON stimuli are not included; the suites re-implement their designs from the "
        "papers cited below.\n",
        "## Citation\n",
        "The suites re-implement the designs of these papers; cite them with voebench when you use this set.\n",
        "```bibtex\n" + "\n\n".join(CITATIONS[p] for p in papers) + "\n```\n" if papers else "No source paper.\n",
    ]
    return "\n".join(parts)


def _splits(keys: list[tuple[str, str]], layout: dict[tuple[str, str], list[str]]) -> list[str]:
    return [f["split"] for f in _files(keys, layout)]


def _identity(dataset: dict, suite: str, tests: list[str]) -> str:
    """A suite's render settings and code fingerprints as dataset.json records them (`suites.<suite>.identity`)."""
    ident = (dataset.get("suites", {}).get(suite) or {}).get("identity") or {}
    if not ident:
        return "The set's dataset.json records no identity for this suite (a set not rendered by `voebench render`).\n"
    keys = ("generator_version", "base_seed", "seconds", "fps", "width", "height", "engine", "samples", "passes")
    settings = {k: ident[k] for k in keys if k in ident}
    code = ident.get("code") or {}
    fingerprints = [["core", f"`{code.get('core', '-')}`"]]
    fingerprints += [[t, f"`{(code.get('tests') or {}).get(t, '-')}`"] for t in tests]
    return f"```json\n{json.dumps(settings, indent=1)}\n```\n\n" + _table(["code", "fingerprint"], fingerprints) + "\n"
