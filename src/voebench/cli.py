"""The `voebench` command. Each package registers its own subcommands; heavy imports (bpy, torch) happen
only inside the command that needs them, so `voebench --help` is instant and `evaluate` works without bpy."""

from __future__ import annotations

import argparse
import importlib
import os
import sys

from voebench import __version__
from voebench.errors import GeneratorBug, UsageError

# (module, what it provides). A module that cannot be imported (an optional extra not installed) is skipped
# in --help and explained if its command is asked for.
COMMAND_MODULES = [
    "voebench.generator.cli",  # render, params, verify, audit, preview, merge
    "voebench.evaluate.cli",  # evaluate, report, export
    "voebench.evaluate.baseline.cli",  # train-baseline
    "voebench.evaluate.baseline.pretrain_cli",  # pretrain-baseline
    "voebench.evaluate.surprise.train_cli",  # train-world-model
    "voebench.evaluate.humans.cli",  # humans serve|links|export
    "voebench.evaluate.newton.cli",  # newton generate
    "voebench.evaluate.predict.cli",  # predict, predict-export
]


class OneLineParser(argparse.ArgumentParser):
    """argparse's own errors (an unknown flag, `--fps abc`, a bad choice) in one line, as every usage error:
    argparse prints the whole usage first, which buries the problem. Subcommands inherit this class."""

    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message} (see {self.prog} --help)\n")


def build_parser() -> argparse.ArgumentParser:
    parser = OneLineParser(
        prog="voebench",
        description="Generate violation-of-expectation physics videos with Blender and score models on them.",
    )
    parser.add_argument("--version", action="version", version=f"voebench {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        module.register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except UsageError as e:  # one line, always: a message that quotes a file's text may hold line breaks
        print(f"voebench {args.command}: error: {' '.join(str(e).splitlines())}", file=sys.stderr)
        return 2
    except GeneratorBug as e:
        import tempfile

        fd, path = tempfile.mkstemp(prefix="voebench-traceback-", suffix=".log")
        with os.fdopen(fd, "w") as f:
            f.write(e.traceback_text)
        print(f"voebench {args.command}: internal error: {e} (a bug: traceback in {path})", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
