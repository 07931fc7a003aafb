"""Making a study from a rendered set, or reopening one: the set is read through the data contract
(evaluate.tasks.load_manifest: manifest.jsonl and dataset.json, strictly), the design is fixed once, and a later
`serve` must name the same set: the same dataset identity and every video the study shows byte for byte the same
(evaluate/humans/setcheck.py: sha256 recorded at creation, checked again before serving)."""

from __future__ import annotations

import os
import time

from voebench import __version__
from voebench.errors import UsageError
from voebench.evaluate.humans import catch, setcheck, viewing
from voebench.evaluate.humans.design import Design, default_design, eligible, participant_seed, plan
from voebench.evaluate.humans.store import Study, study_path
from voebench.evaluate.tasks import load_manifest


def create(set_dir: str, study_dir: str, design: Design) -> Study:
    manifest = load_manifest(set_dir)
    main, train = eligible(manifest, design)
    plans = plan(design, main, train)
    catch.make_files(manifest.root, study_dir, plans)  # the catch videos with a dot, in the study folder
    judged = {t["video_id"] for trials in plans for t in trials if t["phase"] == "main"}
    meta = {
        "written_by": "voebench",
        "voebench_version": __version__,
        "created": time.time(),
        "design": design.as_dict(),
        "set": {
            "root": manifest.root,
            "generator_version": manifest.dataset.get("generator_version"),
            "schema_version": manifest.dataset.get("schema_version"),
            "videos": len(manifest.entries),
            "check": setcheck.record(manifest.root, manifest.dataset, plans),
        },
        "n_main_videos": len(judged),
    }
    seeds = [participant_seed(design.seed, p) for p in range(design.participants)]
    return Study.create(study_dir, meta, plans, seeds)


def open_for_serving(set_dir: str, study_dir: str) -> Study:
    """The existing study, checked against the set it will serve."""
    study = Study(study_dir)
    manifest = load_manifest(set_dir)
    recorded = study.meta["set"].get("check")
    diffs = setcheck.differences(set_dir, manifest.dataset, recorded) if recorded else []
    if diffs:
        study.close()
        more = f" (and {len(diffs) - 1} more)" if len(diffs) > 1 else ""
        raise UsageError(f"{set_dir}: not the set study {study_dir} was made from: {diffs[0]}{more}")
    videos = {e["id"]: e["video"] for e in manifest.entries}
    for a in study.answers():
        t = a["trial"]
        if t.get("video_id") and videos.get(t["video_id"]) != t["video"]:
            study.close()
            raise UsageError(
                f"{set_dir}: not the set study {study_dir} was made from ({t['video_id']} is missing or moved; "
                f"the study was made from {study.meta['set']['root']})"
            )
    # the minimum-viewing rule's durations where a trial keeps none (a study made before trials kept them)
    study.fallback_ms = {e["id"]: ms for e in manifest.entries if (ms := viewing.entry_ms(e)) is not None}
    return study


def open_or_create(set_dir: str, study_dir: str, protocol: str | None, participants: int | None, **given) -> Study:
    """Create the study if `study_dir` holds none, else reopen it; options that disagree with the stored design
    are refused (a study's design never changes once people have seen it)."""
    if not os.path.exists(study_path(study_dir)):
        if protocol is None or participants is None:
            raise UsageError(f"{study_dir}: no study yet; a new one needs --protocol and --participants")
        return create(set_dir, study_dir, default_design(protocol, participants, **given))
    study = open_for_serving(set_dir, study_dir)
    stored = {"min_viewing": "video", **study.meta["design"]}  # a study made before the option had the rule on
    asked = {"protocol": protocol, "participants": participants, **given}
    differ = [
        f"--{k.replace('_', '-')} {v} (study: {stored.get(k)})"
        for k, v in asked.items()
        if v is not None and stored.get(k) != v
    ]
    if differ:
        study.close()
        raise UsageError(f"{study_dir}: the study exists with another design: {'; '.join(differ)}")
    return study
