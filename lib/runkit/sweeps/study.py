"""The sweep's workers: each takes a trial from the study (an interrupted one first), runs it as a `project.fit`
process, and tells the study how it ended. The study lives in its storage, so any number of workers, in this
process, in others, on other machines, share it, and a killed sweep continues where it stopped."""

import os
import signal
import socket
import subprocess
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

from runkit import ConfigError
from runkit.callbacks.run_status import alive
from runkit.sweeps.checks import Checked
from runkit.sweeps.report import best_trial
from runkit.sweeps.runs import STOPPED_CODES, Run, key_args, mean_std, repeated_runs, wait
from runkit.sweeps.spec import SweepSpec, make_pruner, make_sampler, open_storage

HEARTBEAT_S = 10.0  # how often a worker stamps its running trial


@dataclass
class SweepSettings:
    package: str  # whose `cli.commands` fits each run (runkit/sweeps/fit_process.py)
    model: str
    spec: SweepSpec
    checked: Checked
    study: str
    storage: str
    folder: Path  # logs/NAME/sweeps/STUDY: the trials' folders and the results
    n_trials: int
    workers: int = 1
    repeats: int = 1  # runs per trial: seeds
    folds: int = 0  # or cross-validation folds
    grace_s: float = 60.0  # a running trial whose worker has not stamped it for this long is taken over

    @property
    def single(self) -> bool:
        """One run per trial: the only case pruning applies to (several runs cannot report one epoch twice)."""
        return self.repeats == 1 and not self.folds


def open_study(settings: SweepSettings, create: bool = True) -> Any:
    """Create the study, or load it; refuse to continue one that another sweep file or command started.
    `create=False` (a report) reads the study whatever it was started with."""
    import optuna

    spec = settings.spec
    if not create and settings.study not in optuna.get_all_study_names(open_storage(settings.storage)):
        raise ConfigError(f"no study {settings.study!r} in {settings.storage}: run the sweep first, or pass --study")
    study = optuna.create_study(
        study_name=settings.study,
        storage=open_storage(settings.storage),
        sampler=make_sampler(spec.sampler, spec.grid),
        pruner=make_pruner(spec.pruner if settings.single else {"name": "none"}),
        direction="maximize" if settings.checked.mode == "max" else "minimize",
        load_if_exists=True,
    )
    record = {"model": settings.model, "sweep": spec.as_record(), "args": settings.checked.base_args}
    record.update(repeats=settings.repeats, folds=settings.folds)
    saved = study.user_attrs.get("setup")
    if not create:
        return study
    if saved is None:
        study.set_user_attr("setup", record)
        study.set_user_attr("objective", settings.checked.objective)
    elif saved != record:
        differs = next(k for k in record if saved.get(k) != record.get(k))
        raise ConfigError(
            f"study {settings.study!r} in {settings.storage} was started with another {differs} "
            f"({saved.get(differs)!r}); rerun that command to continue it, or pass --study NEW_NAME"
        )
    return study


class Sweeper:
    """Runs the study's trials with `settings.workers` workers (threads, each waiting on its fit process)."""

    def __init__(self, settings: SweepSettings, study: Any) -> None:
        self.settings = settings
        self.study = study
        self.storage = open_storage(settings.storage)  # the records beside the trials' states, by trial number
        self.study_id = self.storage.get_study_id_from_name(settings.study)
        self.host = socket.gethostname()
        self.lock = threading.Lock()
        self.processes: dict[int, subprocess.Popen] = {}
        self.stopping: int | None = None  # the signal that stops the sweep
        self.failures: list[BaseException] = []

    def run(self) -> int:
        """Work until the study has `n_trials`; 0, or 143 / 130 when a signal stopped the sweep."""
        previous = {s: signal.signal(s, self._stop) for s in (signal.SIGTERM, signal.SIGINT)}
        threads = [threading.Thread(target=self._work, args=(i,), daemon=True) for i in range(self.settings.workers)]
        try:
            for thread in threads:
                thread.start()
            while any(thread.is_alive() for thread in threads):
                for thread in threads:
                    thread.join(0.2)
        finally:
            for signum, handler in previous.items():
                signal.signal(signum, handler)
        if self.failures:
            raise self.failures[0]
        return 0 if self.stopping is None else 128 + self.stopping

    def _stop(self, signum: int, frame: FrameType | None) -> None:
        if self.stopping is not None:  # a second Ctrl-C: now
            for process in list(self.processes.values()):
                process.kill()
            return
        self.stopping = signum
        print(
            f"\n{signal.Signals(signum).name}: stopping the running trials at their next step (last.ckpt saved);"
            " rerun the same command to continue the study",
            flush=True,
        )
        for process in list(self.processes.values()):
            process.send_signal(signal.SIGTERM)

    def _work(self, worker: int) -> None:
        try:
            while self.stopping is None:
                with self.lock:
                    job = self._take_interrupted() or self._ask()
                if job is None:
                    return
                self._run_trial(worker, *job)
        except BaseException as err:  # reported by run(), in the main thread
            self.failures.append(err)
            self.stopping = self.stopping or signal.SIGTERM

    # Taking a trial

    def _ask(self) -> tuple[int, dict[str, Any], bool] | None:
        if len(self.study.get_trials(deepcopy=False)) >= self.settings.n_trials:
            return None
        trial = self.study.ask()
        params = {p.key: p.suggest(trial) for p in self.settings.spec.params}
        self._stamp(trial.number, claim=uuid.uuid4().hex)
        return trial.number, params, False

    def _take_interrupted(self) -> tuple[int, dict[str, Any], bool] | None:
        """A running trial whose worker is gone (its process dead on this host, or no heartbeat for grace_s)."""
        from optuna.trial import TrialState

        for trial in self.study.get_trials(deepcopy=False, states=(TrialState.RUNNING,)):
            owner = trial.user_attrs.get("worker") or {}
            if owner.get("host") == self.host and owner.get("pid") == os.getpid():
                continue  # one of ours, running
            same_host_dead = owner.get("host") == self.host and not alive(owner.get("pid"))
            stamped = owner.get("heartbeat", trial.datetime_start.timestamp() if trial.datetime_start else 0)
            if not (same_host_dead or time.time() - stamped > self.settings.grace_s):
                continue
            claim = uuid.uuid4().hex
            self._stamp(trial.number, claim=claim)
            if owner.get("host") != self.host:  # another machine may be taking it too: the last claim wins
                time.sleep(2.0)
                if self._attrs(trial.number).get("worker", {}).get("claim") != claim:
                    continue
            if owner.get("fit_pid") and owner.get("host") == self.host:
                _wait_gone(owner["fit_pid"], self.settings.grace_s)  # it saves last.ckpt as it stops
            self._say(f"trial {trial.number}: resuming (its worker stopped)")
            return trial.number, dict(trial.params), True
        return None

    # Running it

    def _runs(self, number: int, params: dict[str, Any]) -> list[Run]:
        folder = self.settings.folder / f"trial_{number}"
        args = [*self.settings.checked.base_args, *key_args(params)]
        pruning = {
            "class_path": "runkit.sweeps.pruning.OptunaPruning",
            "init_args": {
                "storage": self.settings.storage,
                "study": self.settings.study,
                "trial": number,
                "monitor": self.settings.checked.objective,
                "pruner": self.settings.spec.pruner,
            },
        }
        if self.settings.single:
            return [Run(self.settings.package, folder, args, (pruning,))]
        seed = self.settings.checked.config.get("seed_everything") or 0
        return repeated_runs(self.settings.package, folder, args, seed, self.settings.repeats, self.settings.folds)

    def _run_trial(self, worker: int, number: int, params: dict[str, Any], resumed: bool) -> None:
        from optuna.trial import TrialState

        checked = self.settings.checked
        if not resumed:
            shown = ", ".join(
                f"{k.rsplit('.', 1)[-1]}={v:.4g}" if isinstance(v, float) else f"{k.rsplit('.', 1)[-1]}={v}"
                for k, v in params.items()
            )
            self._say(f"trial {number} started ({shown})")
        started = time.time()
        values = []
        for run in self._runs(number, params):
            if not run.finished:
                code = self._fit(worker, number, run)
                if code in STOPPED_CODES and self.stopping is not None:
                    return  # left running in the study: the next sweep resumes it
                if code != 0:
                    error = run.error()
                    self._say(f"trial {number} FAILED (exit {code}): {error}  [{run.folder / 'output.log'}]")
                    self._finish(number, TrialState.FAIL, None, {"error": error, "folder": str(run.folder)})
                    return
                run.mark_finished()
            best = run.best(checked.objective, checked.mode)
            if best is None:
                error = f"the run logged no finite {checked.objective}"
                self._say(f"trial {number} FAILED: {error}  [{run.folder / 'output.log'}]")
                self._finish(number, TrialState.FAIL, None, {"error": error, "folder": str(run.folder)})
                return
            values.append(best[0])
        epochs = max(len(run.epochs) for run in self._runs(number, params))
        attrs = {"epochs": epochs, "folder": str(self.settings.folder / f"trial_{number}")}
        if not self.settings.single:
            mean, std = mean_std(values)
            attrs.update({"values": values, "std": std})
            values = [mean]
        pruned_at = self._attrs(number).get("pruned_at_epoch")
        took = f"{time.time() - started:.0f} s"
        if pruned_at is not None:
            self._say(f"trial {number} pruned at epoch {pruned_at} ({took})")
            self._finish(number, TrialState.PRUNED, None, attrs)
        else:
            self._say(f"trial {number} finished: {checked.objective} {values[0]:.4f} ({epochs} epochs, {took})")
            self._finish(number, TrialState.COMPLETE, values[0], attrs)

    def _fit(self, worker: int, number: int, run: Run) -> int:
        env = {}
        workers = self.settings.workers
        if workers > 1 and "OMP_NUM_THREADS" not in os.environ:  # the cores shared out, not oversubscribed
            env["OMP_NUM_THREADS"] = str(max(1, (os.cpu_count() or 1) // workers))
        if workers > 1 and "CUDA_VISIBLE_DEVICES" not in os.environ:
            import torch

            if torch.cuda.is_available():  # one device per worker
                env["CUDA_VISIBLE_DEVICES"] = str(worker % torch.cuda.device_count())
        process = run.start(env)
        self.processes[worker] = process
        self._stamp(number, fit_pid=process.pid)
        if threads := env.get("OMP_NUM_THREADS", os.environ.get("OMP_NUM_THREADS")):
            # What best.yaml needs to reproduce the trial exactly: another thread count sums in another order.
            self.storage.set_trial_user_attr(self._trial_id(number), "threads", threads)
        try:
            return wait(process, HEARTBEAT_S, lambda: self._stamp(number))
        finally:
            self.processes.pop(worker, None)

    # The study's records

    def _trial_id(self, number: int) -> int:
        return self.storage.get_trial_id_from_study_id_trial_number(self.study_id, number)

    def _attrs(self, number: int) -> dict[str, Any]:
        return self.storage.get_trial(self._trial_id(number)).user_attrs

    def _stamp(self, number: int, **worker: Any) -> None:
        """Say in the study that this process works on the trial, and when it last did."""
        trial_id = self._trial_id(number)
        current = {} if worker.get("claim") else self.storage.get_trial(trial_id).user_attrs.get("worker", {})
        current.update(worker, host=self.host, pid=os.getpid(), heartbeat=time.time())
        self.storage.set_trial_user_attr(trial_id, "worker", current)

    def _finish(self, number: int, state: Any, value: float | None, attrs: dict[str, Any]) -> None:
        trial_id = self._trial_id(number)
        for key, attr in attrs.items():
            self.storage.set_trial_user_attr(trial_id, key, attr)
        self.study.tell(number, value, state=state)
        finished = [t for t in self.study.get_trials(deepcopy=False) if t.state.is_finished()]
        best = best_trial(self.study)
        line = f"  {len(finished)} of {self.settings.n_trials} trials done"
        if best is not None:
            line += f"; best {self.settings.checked.objective} {best.value:.4f} (trial {best.number})"
        self._say(line)

    def _say(self, line: str) -> None:
        print(f"[sweep {self.settings.study}] {line}", flush=True)


def _wait_gone(pid: int, timeout: float) -> None:
    deadline = time.time() + timeout
    while alive(pid) and time.time() < deadline:
        time.sleep(0.5)
