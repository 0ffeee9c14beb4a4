"""What a project's tests use, and runkit's own: its commands forked from a process that has imported them once
(`Server`), runs that kill themselves at a chosen step (`signal_at`) compared tensor by tensor (`differing`); beside
them the check every bad input gets (`bad_inputs`), the import layering (`layers`), the README's commands
(`readme`), served answers against `predict` (`serving`), a run's TensorBoard tags (`events`)."""

from runkit.testing.preloaded import Server
from runkit.testing.signals import SignalAt, differing, signal_at

__all__ = ["Server", "SignalAt", "differing", "signal_at"]
