"""lmms-eval task groups of an exported set: `lmms-eval --tasks <name>_<suite>` prints a row per test and a group row
aggregated as `voebench report` aggregates a suite (issue 26).

    groups/<name>_<suite>.yaml         a group per suite: its test tasks
    groups/<name>_<suite>_<kind>.yaml  a group per question kind of a suite that mixes kinds (Level 1: binary, open):
                                       its (test, kind) tasks

The report's suite row is the mean over tests of the per-test accuracy, every test weighing the same whatever its
number of questions, so the groups aggregate with `aggregation: mean` and `weight_by_size: false`. lmms-eval 0.7.3
aggregates every subtask metric whose name *contains* an aggregated one (evaluator_utils.consolidate_group_results),
each over the subtasks that report it: aggregating `grasp_acc` also gives a suite group `grasp_acc_binary` (the
mean over every test with yes/no questions) and `grasp_acc_open` (over the tests with an open question), the
report's per-kind suite rows; its pooled `grasp_acc` mixes kinds whose chance levels differ, so a suite of several
kinds also gets a group per kind, whose `grasp_acc` is that kind's row. The groups live in a subfolder (lmms-eval's
`--include_path` reads folders recursively) so that every YAML at the top of the folder is a task.
"""

from __future__ import annotations

import os
from collections.abc import Callable

GROUPS = "groups"
AGGREGATED = ("grasp_acc", "grasp_invalid")


def group_yaml(group: str, tasks: list[str]) -> str:
    """A group's YAML: its subtasks and the unweighted mean of their metrics."""
    task_list = "".join(f"  - {t}\n" for t in tasks)
    aggregate = "".join(f"  - metric: {m}\n    aggregation: mean\n    weight_by_size: false\n" for m in AGGREGATED)
    return f"group: {group}\ntask:\n{task_list}aggregate_metric_list:\n{aggregate}metadata:\n  version: 0.1\n"


def write_groups(
    out_dir: str,
    name: str,
    suite_tasks: dict[str, list[str]],
    kind_tasks: dict[tuple[str, str], list[str]],
    slug: Callable[[str], str],
) -> list[str]:
    """Write the groups (replacing the group files of an earlier export of this name); returns their names."""
    folder = os.path.join(out_dir, GROUPS)
    os.makedirs(folder, exist_ok=True)
    for old in os.listdir(folder):  # a suite no longer exported must not leave a group of missing tasks behind
        if old.startswith(f"{name}_") and old.endswith(".yaml"):
            os.remove(os.path.join(folder, old))
    written: list[str] = []
    wanted = [(f"{name}_{slug(suite)}", tasks) for suite, tasks in sorted(suite_tasks.items())]
    wanted += [(f"{name}_{slug(suite)}_{kind}", tasks) for (suite, kind), tasks in sorted(kind_tasks.items())]
    for group, tasks in wanted:
        with open(os.path.join(folder, f"{group}.yaml"), "w", encoding="utf-8") as fh:
            fh.write(group_yaml(group, tasks))
        written.append(group)
    return written
