"""Take a stack home: each target writes what its framework can express of a stack, and
lists at the top what it cannot (never dropped or approximated in silence).

A target is a function of the stack and settings that returns an ``Export``; ``TARGETS``
names them. Each policy a framework can express has one translator in that target's
module; anything else becomes a line of the header.

May import: `policies`, the engine, `stacks`, the root modules.
"""

from __future__ import annotations

from playground.export.base import Export, ExportError, Unexpressible
from playground.export.targets import TARGETS, export

__all__ = ["TARGETS", "Export", "ExportError", "Unexpressible", "export"]
