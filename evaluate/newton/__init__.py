"""NEWTON-style physical-attribute questions (docs/newton.md): read an object-attribute repository in NEWTON's
published format, filter it as the paper does, fill the three tracks' templates, write a question set that
`voebench evaluate` scores with the same adapters, cache and logs, and the report's NEWTON metrics.

Modules: `repository` (reading and filtering), `templates` (wording of every track and prompt variant),
`generate` (condition statements -> balanced questions), `questionset` (the files on disk and the evaluation
samples), `answers` (parsing a choice answer), `metrics` (the report), `cli` (`voebench newton generate`).
"""
