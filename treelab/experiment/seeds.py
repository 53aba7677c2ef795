"""Seeds of an experiment: every random choice derives from the configuration's ``seed`` and
names (canonical JSON hashed with SHA-256), never from the order in which cells run."""

from __future__ import annotations

import hashlib
import json
from typing import Any

__all__ = ["canonical_json", "cell_seed"]


def canonical_json(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), allow_nan=True)


def cell_seed(*parts: Any) -> int:
    """A 32-bit seed derived from JSON-able ``parts`` (stable across processes and runs)."""
    digest = hashlib.sha256(canonical_json(list(parts)).encode()).digest()
    return int.from_bytes(digest[:4], "little")
