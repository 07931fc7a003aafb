"""Human baselines: a web study that shows people the videos of a rendered set and records their judgements, the
way GRASP (plausible or not, three votes per video, majority) and AVoE (familiarization, surprise ratings, repeated
trials, attention checks) validated their stimuli with people.

- `design`: which trials each participant sees, in which order (from recorded seeds).
- `store`: the study in one SQLite file (write-ahead log, synchronous=FULL: an acknowledged answer survives a
  kill -9 of the server).
- `server`: the Starlette app (participant page, JSON API, videos with HTTP range requests).
- `export`: answers as JSONL/CSV and as a run directory that `voebench report` scores like a model run.
- `stats`: what only a panel of people has: exclusions by attention checks, Fleiss' kappa, split-half
  reliability, test-retest agreement, per-video accuracy flags.
- `cli`: `voebench humans serve|links|export`.

docs/humans.md describes the study from the participant's and the experimenter's side.
"""
