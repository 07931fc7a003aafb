"""Tasks from a rendered set's manifest (docs/schema.md): one `Sample` per (video, question), with the user turns
the chosen prompting strategy sends.

Strategies (GRASP paper Section 4.2, original scripts `grasp/tests/level1_*.py`, `level2_text.py`):
- ``zero-shot``: the binary / plausibility question with the video, one turn.
- ``open``: the Level 1 open question with the video, one turn (Movement and Ordering have none).
- ``cot``: turn 1 = the video's open question (or "What can you see in this video?" where there is none) with the
  video; the model answers; turn 2 = the binary question without the video. Only the last answer is scored.
- ``one-shot``: turn 1 = an example question with its correct answer on another video of the same test (its
  positive or negative question, 50/50, seeded), with that video; the model answers; turn 2 = the question with
  the target video.
- ``text``: the video replaced by the manifest's ground-truth `description` (GRASP's text-only control).
"""

from __future__ import annotations

import os
import random
from dataclasses import asdict, dataclass, field

from voebench.contract import dataset as ds
from voebench.contract import manifest as mf
from voebench.contract import pairs
from voebench.errors import UsageError
from voebench.evaluate import prompts

STRATEGIES = ("zero-shot", "cot", "one-shot", "open", "text")
QUESTION_KINDS = ("binary", "plausibility", "choice")


@dataclass(frozen=True)
class VideoRef:
    """A video as the manifest describes it. `path` is absolute; `rel` as written in the manifest."""

    rel: str
    path: str
    n_frames: int
    fps: float
    width: int
    height: int


@dataclass(frozen=True)
class Turn:
    """One user turn: text, optionally preceded by a video."""

    text: str
    video: VideoRef | None = None


@dataclass
class Sample:
    sample_id: str
    video_id: str
    suite: str
    test: str
    kind: str  # binary | plausibility | open
    truth: str  # yes / no / open class
    polarity: str | None  # positive / negative (binary: statement; plausibility: plausible=positive)
    strategy: str
    turns: list[Turn]
    condition: str = ""
    index: int = 0
    pair_id: str | None = None
    pair_conditions: list | None = None  # the conditions that make this video's pair whole
    test_number: int | None = None
    choices: dict | None = None
    observation: str | None = None
    example: dict | None = None  # one-shot: the example's video id, question and answer
    question: str = ""  # the scored question's text as in the manifest
    meta: dict | None = None  # what a question set's own metrics group by (NEWTON: track, attribute, position...)
    violation_level: float | None = None  # the violation's size in its test's unit (0: the plausible twin), if recorded
    sweep_rank: int | None = None  # a swept trial's violated video: its level's rank (its place `implausible-<rank>`)

    def record(self) -> dict:
        """JSON-ready description (no absolute paths: those depend on where the set lives)."""
        d = {k: v for k, v in asdict(self).items() if k != "turns"}
        d["turns"] = [{"text": t.text, "video": t.video.rel if t.video else None} for t in self.turns]
        return d


@dataclass
class Manifest:
    root: str
    entries: list[dict] = field(default_factory=list)
    dataset: dict = field(default_factory=dict)

    def video(self, e: dict) -> VideoRef:
        return VideoRef(
            rel=e["video"],
            path=os.path.join(self.root, e["video"]),
            n_frames=int(e["n_frames"]),
            fps=float(e["fps"]),
            width=int(e.get("width", 0)),
            height=int(e.get("height", 0)),
        )


def load_manifest(root: str) -> Manifest:
    """The set in `root`, read strictly through voebench.contract: a folder voebench did not write, a corrupt
    or cut-short manifest, or an entry lacking a required key is refused (UsageError naming file and line)."""
    root = os.path.abspath(root)
    path = os.path.join(root, mf.NAME)
    if not os.path.isfile(path):
        raise UsageError(f"{root} is not a rendered set: no {mf.NAME}")
    dpath = os.path.join(root, ds.NAME)
    if not os.path.isfile(dpath):
        raise UsageError(f"{root} is not a rendered set: no {ds.NAME}")
    dataset = ds.read_dataset(dpath)
    return Manifest(root, mf.read_manifest(path, truncated="error"), dataset)


def whole_pairs(entries: list[dict], complete_pairs_only: bool) -> tuple[list[dict], int]:
    """(the entries to score, how many incomplete pairs were dropped). A paired set missing one video of a pair
    would be scored with a skewed plausible/implausible balance (a yes-sayer then beats chance), so it is
    refused unless `complete_pairs_only`, which keeps only the complete pairs."""
    kept, bad = pairs.drop_incomplete(entries)
    if bad and not complete_pairs_only:
        raise UsageError(
            pairs.describe(bad, pairs.count_pairs(entries)) + "; run `voebench verify --repair` and "
            "render again, or pass --complete-pairs-only to score only the complete pairs"
        )
    return kept, len(bad)


def select(
    manifest: Manifest,
    suites: list[str] | None = None,
    tests: list[str] | None = None,
    limit: int | None = None,
    complete_pairs_only: bool = False,
) -> list[dict]:
    """`select_counted` without the count of dropped pairs."""
    return select_counted(manifest, suites, tests, limit, complete_pairs_only)[0]


def select_with_videos(
    manifest: Manifest,
    dataset_dir: str,
    why: str,
    suites: list[str] | None = None,
    tests: list[str] | None = None,
    limit: int | None = None,
    complete_pairs_only: bool = False,
) -> list[dict]:
    """`select` for an export that ships videos: an empty selection, or one holding a video without an mp4 (a
    --states-only render), is refused in one line; `why` says why the export needs them."""
    entries = select(manifest, suites, tests, limit, complete_pairs_only=complete_pairs_only)
    if not entries:
        raise UsageError("nothing to export: the selection is empty")
    no_video = [e["id"] for e in entries if not e.get("video")]
    if no_video:
        raise UsageError(
            f"{dataset_dir}: {len(no_video)} of {len(entries)} selected videos have no mp4 (a --states-only render, "
            f"e.g. {no_video[0]}): {why}"
        )
    return entries


def select_counted(
    manifest: Manifest,
    suites: list[str] | None = None,
    tests: list[str] | None = None,
    limit: int | None = None,
    complete_pairs_only: bool = False,
) -> tuple[list[dict], int]:
    """(entries, incomplete pairs dropped): entries of the chosen suites/tests (a test is named `test` or
    `suite/test`), at most `limit` videos per test (a pair is never cut: the twin of the last video taken comes
    along), in (suite, test, index, condition) order. Incomplete pairs are refused, or dropped with
    `complete_pairs_only` (see `whole_pairs`)."""
    out = []
    known_suites = {e["suite"] for e in manifest.entries}
    known_tests = {e["test"] for e in manifest.entries} | {f"{e['suite']}/{e['test']}" for e in manifest.entries}
    for s in suites or []:
        if s not in known_suites:
            raise UsageError(f"--suite {s}: not in this set (has {', '.join(sorted(known_suites))})")
    for t in tests or []:
        if t not in known_tests:
            raise UsageError(f"--tests {t}: no such test in this set")
    for e in manifest.entries:
        if suites and e["suite"] not in suites:
            continue
        if tests and e["test"] not in tests and f"{e['suite']}/{e['test']}" not in tests:
            continue
        out.append(e)
    out, dropped = whole_pairs(out, complete_pairs_only)
    out.sort(key=lambda e: (e["suite"], e["test"], int(e.get("index", 0)), str(e.get("condition", ""))))
    if limit is not None:
        if limit <= 0:
            raise UsageError("--limit must be positive")
        per: dict[tuple, int] = {}
        kept: list[dict] = []
        for e in out:
            k = (e["suite"], e["test"])
            if per.get(k, 0) < limit or (kept and e.get("pair_id") and kept[-1].get("pair_id") == e["pair_id"]):
                kept.append(e)
                per[k] = per.get(k, 0) + 1
        out = kept
    return out, dropped


def _polarity(p: dict) -> str | None:
    if p["kind"] == "choice":  # NEWTON phrasing: positive ("most", "more", "is") / negative, or none
        return p.get("polarity")
    if p["kind"] == "binary":
        return p.get("polarity") or ("positive" if p.get("answer") == "yes" else "negative")
    if p["kind"] == "plausibility":
        return "positive" if p.get("answer") == "yes" else "negative"
    return None


def _sample_id(e: dict, p: dict) -> str:
    if p["kind"] == "binary":
        return f"{e['id']}#binary-{_polarity(p)}"
    if p["kind"] == "choice":  # a video may ask several: each names its own id
        return f"{e['id']}#{(p.get('meta') or {}).get('qid', 'choice')}"
    return f"{e['id']}#{p['kind']}"


def _base(e: dict, p: dict, strategy: str, turns: list[Turn]) -> Sample:
    return Sample(
        sample_id=_sample_id(e, p),
        video_id=e["id"],
        suite=e["suite"],
        test=e["test"],
        kind=p["kind"],
        truth=str(p["answer"]).lower() if p["kind"] in ("binary", "plausibility") else str(p["answer"]),
        polarity=_polarity(p),
        strategy=strategy,
        turns=turns,
        condition=str(e.get("condition", "")),
        index=int(e.get("index", 0)),
        pair_id=e.get("pair_id"),
        pair_conditions=list(pairs.expected_conditions(e) or []) or None,
        test_number=e.get("test_number"),
        choices=p.get("choices"),
        observation=p.get("observation"),
        question=p["text"],
        meta=p.get("meta"),
        violation_level=e.get("violation_level"),
        sweep_rank=e.get("sweep_rank"),
    )


def build_samples(manifest: Manifest, entries: list[dict], strategy: str, seed: int = 0) -> list[Sample]:
    """The samples of `strategy` over `entries`. One-shot examples are drawn from the whole manifest (other videos
    of the same test), with a random.Random seeded by (seed, sample id), so they are reproducible."""
    if strategy not in STRATEGIES:
        raise UsageError(f"--strategy {strategy}: choose one of {', '.join(STRATEGIES)}")
    by_test: dict[tuple, list[dict]] = {}
    for e in manifest.entries:
        by_test.setdefault((e["suite"], e["test"]), []).append(e)
    samples: list[Sample] = []
    no_description = []
    for e in entries:
        video = manifest.video(e) if e.get("video") else None  # None: a --states-only set (only `text` asks it)
        open_q = next((p for p in e["prompts"] if p["kind"] == "open"), None)
        for p in e["prompts"]:
            if strategy == "open":
                if p["kind"] == "open":
                    samples.append(_base(e, p, strategy, [Turn(p["text"], video)]))
                continue
            if p["kind"] not in QUESTION_KINDS:
                continue
            if strategy == "zero-shot":
                turns = [Turn(p["text"], video)]
            elif strategy == "cot":
                first = open_q["text"] if open_q else prompts.COT_GENERIC
                turns = [Turn(first, video), Turn(p["text"], None)]
            elif strategy == "text":
                desc = e.get("description")
                if not desc:
                    no_description.append(e["id"])
                    continue
                if p["kind"] == "plausibility":
                    text = f"{prompts.TEXT_PLAUSIBILITY}\n{desc}"
                else:
                    text = prompts.TEXT_LEVEL1.format(description=desc, question=p["text"])
                turns = [Turn(text, None)]
            else:  # one-shot
                sid = _sample_id(e, p)
                rng = random.Random(f"{seed}/one-shot/{sid}")
                others = [o for o in by_test[(e["suite"], e["test"])] if o["id"] != e["id"]]
                if not others:
                    raise UsageError(f"one-shot needs two videos in test {e['suite']}/{e['test']}; it has one")
                want = "positive" if rng.random() < 0.5 else "negative"
                candidates = [
                    (o, q) for o in others for q in o["prompts"] if q["kind"] == p["kind"] and _polarity(q) == want
                ]
                if not candidates:  # e.g. a test whose other videos are all of one condition
                    candidates = [(o, q) for o in others for q in o["prompts"] if q["kind"] == p["kind"]]
                if not candidates:
                    raise UsageError(f"one-shot: no example question in test {e['suite']}/{e['test']}")
                ex_e, ex_p = candidates[rng.randrange(len(candidates))]
                answer = str(ex_p["answer"]).lower()
                first = prompts.ONE_SHOT.format(question=ex_p["text"], answer=answer)
                turns = [Turn(first, manifest.video(ex_e)), Turn(p["text"], video)]
                s = _base(e, p, strategy, turns)
                s.example = {
                    "video_id": ex_e["id"],
                    "question": ex_p["text"],
                    "answer": answer,
                    "polarity": _polarity(ex_p),
                }
                samples.append(s)
                continue
            samples.append(_base(e, p, strategy, turns))
    if no_description:
        raise UsageError(
            f"--strategy text: {len(no_description)} manifest entries have no description (first: {no_description[0]})"
        )
    return samples
