"""Where each suite's scene scripts live, by suite name: the generator core loads suites by name (as plugins,
`suite.load_suite`) and never imports the scenes layer itself.

Kept apart from suite.py (which imports numpy) so the command line can name the suites in its help texts
without loading anything: `voebench render --help` lists the names here. A new suite adds a line here, or
registers with `register_suite`.
"""

from __future__ import annotations

SUITE_REFS = {
    "grasp-l1": "voebench.scenes.grasp_l1:GraspLevel1",
    "grasp-l2": "voebench.scenes.grasp_l2:GraspLevel2",
    "avoe": "voebench.scenes.avoe:AVoE",
    "newton": "voebench.scenes.newton:Newton",
    "predict": "voebench.scenes.predict:Predict",
}


def register_suite(name: str, ref: str) -> None:
    """Make a suite class ("package.module:Class") loadable by name (`voebench render NAME`)."""
    SUITE_REFS[name] = ref


def suite_names() -> str:
    """'grasp-l1, grasp-l2, avoe, newton or predict': the suites by name, for help texts."""
    names = list(SUITE_REFS)
    return f"{', '.join(names[:-1])} or {names[-1]}" if len(names) > 1 else ", ".join(names)
