"""For the resume and signal tests: a run that signals itself at a chosen training step.

A SIGKILL from inside is the same kill as one from outside (the kernel ends the process at once);
choosing the step makes the test exact instead of a race with a fast training loop.
"""

import os
import signal
from pathlib import Path

import lightning.pytorch as L
import torch
import yaml


class SignalAt(L.Callback):
    """At the end of training step `step`, send `signal` to this process, or to its whole process group
    (as a terminal's Ctrl-C reaches every DDP process), from rank `rank` only."""

    def __init__(self, step: int, signal: str = "SIGKILL", group: bool = False, rank: int = 0) -> None:
        self.step, self.signal, self.group, self.rank = step, signal, group, rank

    def on_train_batch_end(self, trainer: L.Trainer, *args: object) -> None:
        if trainer.global_step == self.step and trainer.global_rank == self.rank:
            signum = getattr(signal, self.signal)
            if self.group:
                os.killpg(os.getpgid(0), signum)
            else:
                os.kill(os.getpid(), signum)


def signal_at(cwd: Path, step: int, signal: str = "SIGKILL", group: bool = False) -> str:
    """`--config` for a run that sends itself `signal` at the end of training step `step`."""
    path = cwd / f"{signal}_at_{step}.yaml"
    callback = {"class_path": "runkit.testing.SignalAt", "init_args": {"step": step, "signal": signal, "group": group}}
    path.write_text(yaml.safe_dump({"trainer": {"callbacks+": [callback]}}))
    return f"--config={path}"


def differing(expected: dict[str, torch.Tensor], actual: dict[str, torch.Tensor]) -> list[str]:
    """Names of the tensors that are not bitwise equal."""
    assert expected.keys() == actual.keys()
    return [name for name in expected if not torch.equal(expected[name], actual[name])]
