"""The rendering benchmarks behind `bench/bench_render.py`, one module per concern: common (clocks, results),
timers (explicit timers), reuse (one video in-process, reuse vs naive), paths (today's vs the new render path),
quality (anti-aliasing error), project (core-hours projection), legacy (the previous round's subcommands) and
report (markdown tables)."""
