"""Shared by the tests: where the examples are, and the command line's JSON."""

import json
import os
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
EXAMPLES = ROOT / "examples"


def cli(*args):
    """``contactlab ARGS --json``, parsed (the binary from $CONTACTLAB_BIN, else the debug build)."""
    exe = os.environ.get("CONTACTLAB_BIN") or str(ROOT / "target" / "debug" / "contactlab")
    out = subprocess.run([exe, *map(str, args), "--json"], capture_output=True, text=True, check=True)
    return json.loads(out.stdout)
