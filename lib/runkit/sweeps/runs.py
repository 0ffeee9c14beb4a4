"""One fit run in its own folder, started as a process: what a sweep trial and a repeat are made of."""

import json
import os
import subprocess
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import yaml

from runkit.sweeps.epoch_record import best_value, read_epochs
from runkit.sweeps.fit_process import PARENT_VARIABLE

FINISHED = "finished.json"  # written when the run's process exited 0: the run is not started again
STOPPED_CODES = (130, 143)  # the run saved last.ckpt and stopped on a signal: resumable, not failed


def cli_value(value: Any) -> str:
    """A value as `--key=VALUE` takes it (YAML): `1.0e-05`, not `1e-05`, which YAML reads as a string."""
    if isinstance(value, dict | list | tuple):
        return json.dumps(list(value) if isinstance(value, tuple) else value)
    if isinstance(value, str):
        return value
    return yaml.safe_dump(value).splitlines()[0]


def key_args(values: dict[str, Any]) -> list[str]:
    return [f"--{key}={cli_value(value)}" for key, value in values.items()]


@dataclass
class Run:
    """A fit in `folder` (logged there by the config's logger, checkpoints in `folder/checkpoints`).

    Args:
        package: the project whose `cli.commands` fits it (its registry's `package`).
        folder: e.g. logs/cnn/sweeps/STUDY/trial_3.
        args: the fit command line, without the logger and callbacks this adds.
        callbacks: more callbacks (class_path and init_args), e.g. the trial's pruning.
    """

    package: str
    folder: Path
    args: list[str]
    callbacks: tuple[dict[str, Any], ...] = ()

    @property
    def epochs(self) -> dict[int, dict[str, float]]:
        return read_epochs(self.folder / "epochs.json")

    @property
    def finished(self) -> bool:
        return (self.folder / FINISHED).is_file()

    def best(self, metric: str, mode: str) -> tuple[float, int] | None:
        return best_value(self.epochs, metric, mode)

    def command(self) -> list[str]:
        """Write the run's own config (where it logs, what records its result) and return the fit command.

        `--ckpt_path last`: a run that was interrupted continues from its `last.ckpt`; a new one starts fresh.
        """
        self.folder.mkdir(parents=True, exist_ok=True)
        record = {
            "class_path": "runkit.sweeps.epoch_record.EpochRecord",
            "init_args": {"path": str(self.folder / "epochs.json")},
        }
        config = {
            "run_dir": str(self.folder),  # every logger writes there (a stacked CSV logger too)
            "test_after_fit": False,  # the test split is for the end of a study, not for choosing within it
            "trainer": {
                "enable_progress_bar": False,  # the run's output goes to output.log
                "callbacks+": [record, *self.callbacks],
            },
        }
        run_config = self.folder / "run.yaml"
        run_config.write_text(
            "# Written for this run by project.sweep / project.repeat: where it logs, what records its result.\n"
            + yaml.safe_dump(config, sort_keys=False)
        )
        return [*self.args, "--config", str(run_config), "--ckpt_path", "last"]

    def start(self, env: dict[str, str] | None = None) -> subprocess.Popen:
        """Start the fit process; its output is appended to `folder/output.log`."""
        command = [sys.executable, "-m", "runkit.sweeps.fit_process", self.package, *self.command()]
        environment = {**os.environ, **(env or {}), PARENT_VARIABLE: str(os.getpid())}
        with open(self.folder / "output.log", "ab") as out:
            out.write(f"\n$ python -m {self.package}.fit {' '.join(command[4:])}\n".encode())
            out.flush()
            return subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=environment)

    def error(self) -> str:
        """The run's last `error:` line, or the last line of its output: why it failed."""
        path = self.folder / "output.log"
        lines = (
            [line for line in path.read_text(errors="replace").splitlines() if line.strip()] if path.is_file() else []
        )
        errors = [line for line in lines if line.startswith(("error:", "Traceback")) or "Error:" in line]
        found = errors[-1] if errors else (lines[-1] if lines else "no output")
        return found[:500]

    def mark_finished(self) -> None:
        (self.folder / FINISHED).write_text(json.dumps({"epochs": len(self.epochs), "time": time.time()}))


def repeated_runs(
    package: str, folder: Path, args: list[str], seed: int, seeds: int = 0, folds: int = 0, fold_seed: int = 0
) -> list[Run]:
    """`seeds` runs with seed_everything = seed, seed+1, ... (`seed_S/`), or one run per cross-validation fold
    (`fold_K/`, `runkit/sweeps/cross_validation.py`), in sub-folders of `folder`."""
    if folds:
        fold = lambda k: {"class_path": "runkit.sweeps.cross_validation.CrossValidation",  # noqa: E731
                          "init_args": {"folds": folds, "fold": k, "seed": fold_seed}}  # fmt: skip
        return [Run(package, folder / f"fold_{k}", args, (fold(k),)) for k in range(folds)]
    return [Run(package, folder / f"seed_{seed + i}", [*args, f"--seed_everything={seed + i}"]) for i in range(seeds)]


def wait(process: subprocess.Popen, every: float, tick: Callable[[], None]) -> int:
    """Wait for `process`, calling `tick` every `every` seconds meanwhile (a heartbeat)."""
    while True:
        try:
            return process.wait(timeout=every)
        except subprocess.TimeoutExpired:
            tick()


def mean_std(values: Sequence[float]) -> tuple[float, float]:
    """Mean and sample standard deviation (0 for a single value)."""
    mean = sum(values) / len(values)
    if len(values) < 2:
        return mean, 0.0
    return mean, (sum((v - mean) ** 2 for v in values) / (len(values) - 1)) ** 0.5
