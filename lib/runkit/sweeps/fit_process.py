"""`project.fit` for a run that `project.sweep` or `project.repeat` started, ending with them.

The run gets SIGTERM when the thread that started it dies, even by SIGKILL (Linux's parent-death signal), so a
killed sweep leaves no trial training on: `GracefulStop` saves `last.ckpt` and exits 143, and rerunning the
sweep resumes the trial from there. Lightning's DDP processes of the run start this module again, each
ending with its rank 0 in turn.
"""

import importlib
import os
import signal
import sys

from runkit import reported

PARENT_VARIABLE = "PROJECT_RUN_PARENT"  # the starting process's pid; the run's own DDP processes do not see it


def end_with_parent() -> None:
    if sys.platform != "linux":
        return
    import ctypes

    PR_SET_PDEATHSIG = 1
    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGTERM)
    parent = os.environ.pop(PARENT_VARIABLE, None)
    if parent is not None and int(parent) != os.getppid():
        raise SystemExit(143)  # it died before the signal was asked for


if __name__ == "__main__":  # python -m runkit.sweeps.fit_process PACKAGE [fit args]
    end_with_parent()
    package, *fit_args = sys.argv[1:]
    with reported():
        importlib.import_module(f"{package}.cli").commands.main(fit_args, subcommand="fit")
