"""Shared paths for the Python tests: the repository, its reference data, and the chorus binary (from CTest)."""

import os
from pathlib import Path

SOURCE_DIR = Path(os.environ.get("CHORUS_SOURCE_DIR", Path(__file__).resolve().parents[2]))
REFERENCE = SOURCE_DIR / "tests" / "data" / "reference"
CHORUS_BINARY = os.environ.get("CHORUS_BINARY", str(SOURCE_DIR / "build" / "chorus"))
