#!/usr/bin/env python3
"""Tables of AVoE baseline runs gathered from GPU calls: unpack runs.tar.gz files into one run directory and print
the supplementary-Table-4 layout (table4.md) and the side-by-side comparison with the published hit rates.

    python bench/baseline_tables.py RUN_DIR [runs.tar.gz ...]
"""

from __future__ import annotations

import sys
import tarfile
from pathlib import Path


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__, file=sys.stderr)
        return 2
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from checkout import import_evaluate

    import_evaluate()
    from voebench.evaluate.baseline.tables import comparison_table, write_tables

    run_dir = Path(sys.argv[1])
    run_dir.mkdir(parents=True, exist_ok=True)
    for tar in sys.argv[2:]:
        with tarfile.open(tar) as tf:
            tf.extractall(run_dir, filter="data")
    text, _ = write_tables(run_dir)
    comp = comparison_table(run_dir)
    (run_dir / "comparison.md").write_text(comp)
    print(text)
    print(comp)
    return 0


if __name__ == "__main__":
    sys.exit(main())
