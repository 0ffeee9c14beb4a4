"""The Diagnostics callback's checks: one small object per classic mistake, built on the pure functions
in training_checks.py, each with its thresholds named. A check sees the hooks it needs and reports
through `Report`; the callback (diagnostics.py) only dispatches, so a new check touches no other.
"""

from runkit.callbacks.checks.base import Check, Finding, Report
from runkit.callbacks.checks.batches import Finite, FirstBatches
from runkit.callbacks.checks.data import DataSpeed, Splits, Targets
from runkit.callbacks.checks.model import EvalMode, Gradients, KeptGraphs, Parameters, ReceptiveField

__all__ = [
    "Check",
    "DataSpeed",
    "EvalMode",
    "Finding",
    "Finite",
    "FirstBatches",
    "Gradients",
    "KeptGraphs",
    "Parameters",
    "ReceptiveField",
    "Report",
    "Splits",
    "Targets",
]
