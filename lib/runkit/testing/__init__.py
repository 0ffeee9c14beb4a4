"""What a project's tests use: its commands forked from a process that has imported them once (`Server`), and runs
that kill themselves at a chosen step (`signal_at`), compared tensor by tensor (`differing`)."""

from runkit.testing.preloaded import Server
from runkit.testing.signals import SignalAt, differing, signal_at

__all__ = ["Server", "SignalAt", "differing", "signal_at"]
