"""docs/schema.md and voebench.contract name the same keys: each table marked `<!-- contract: NAME -->` lists
exactly the names of `voebench.contract.tables.TABLES[NAME]`, and every contract list has its table."""

import os
import re

from conftest import ROOT

from voebench.contract.tables import TABLES

DOC = os.path.join(ROOT, "docs", "schema.md")


def doc_tables() -> dict[str, list[str]]:
    """marker -> the backticked names in the first column of the table right below it."""
    lines = open(DOC, encoding="utf-8").read().splitlines()
    out = {}
    for i, line in enumerate(lines):
        m = re.fullmatch(r"<!-- contract: (\S+) -->", line.strip())
        if not m:
            continue
        names = []
        for row in lines[i + 3 :]:  # skip the header and the |---| rule
            if not row.startswith("|"):
                break
            names += re.findall(r"`([^`]+)`", row.split("|")[1])
        out[m.group(1)] = names
    return out


def test_every_contract_list_has_its_table_and_no_table_is_stale():
    tables = doc_tables()
    assert set(tables) == set(TABLES), "markers in docs/schema.md vs voebench.contract.tables.TABLES"
    for name, keys in TABLES.items():
        documented = tables[name]
        assert len(documented) == len(set(documented)), f"{name}: a name is listed twice"
        assert set(documented) == set(keys), (
            f"{name}: in the contract, not in the doc: {sorted(set(keys) - set(documented))}; "
            f"in the doc, not in the contract: {sorted(set(documented) - set(keys))}"
        )


def test_the_identity_the_runner_records_is_the_documented_one():
    from voebench.contract.dataset import IDENTITY_KEYS, IDENTITY_OPTIONAL_KEYS
    from voebench.generator.runner import RunConfig
    from voebench.scenes import REGISTRY

    suite = REGISTRY.get("grasp-l1")
    ident = RunConfig(out="-", suite="grasp-l1", tests=["shape"], trials=1).identity(suite)
    assert set(ident) == set(IDENTITY_KEYS + IDENTITY_OPTIONAL_KEYS)


def test_the_contract_is_the_lowest_layer():
    """voebench.contract imports nothing of voebench but voebench.errors (so every package can depend on it)."""
    import subprocess
    import sys

    code = (
        "import sys, voebench.contract.tables, voebench.contract.pairs; "
        "print(sorted(m for m in sys.modules if m.startswith('voebench')))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    loaded = set(eval(out))
    assert {m for m in loaded if not m.startswith("voebench.contract")} <= {"voebench", "voebench.errors"}, loaded
