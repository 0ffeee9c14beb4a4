"""A sweep file (configs/sweeps/*.yaml), read and checked field by field, and the Optuna objects it names."""

import math
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from runkit import ConfigError

SAMPLERS = ("tpe", "random", "grid")
PRUNERS = ("median", "successive_halving", "hyperband", "none")
TYPES = ("float", "int", "categorical")


@dataclass(frozen=True)
class Param:
    """One searched key: a `project.fit` key (`model.optimizer.init_args.lr`) and its distribution."""

    key: str
    type: str
    low: float | None = None
    high: float | None = None
    log: bool = False
    step: float | None = None
    choices: tuple[Any, ...] = ()

    def suggest(self, trial: Any) -> Any:
        if self.type == "float":
            return trial.suggest_float(self.key, self.low, self.high, log=self.log, step=self.step)
        if self.type == "int":
            return trial.suggest_int(self.key, int(self.low), int(self.high), log=self.log, step=int(self.step or 1))
        return trial.suggest_categorical(self.key, list(self.choices))

    def extremes(self) -> list[Any]:
        """Values that reach every type the key can take: both ends of a range, each choice."""
        if self.type == "categorical":
            return list(self.choices)
        cast = float if self.type == "float" else int
        return [cast(self.low), cast(self.high)]


@dataclass(frozen=True)
class SweepSpec:
    path: Path
    params: tuple[Param, ...]
    objective: str = "auto"  # the task's monitored metric (val/acc...), or a metric the model logs
    direction: str = "auto"  # maximize / minimize; auto: the task's
    n_trials: int = 20  # with the grid sampler: the grid's size
    repeats: int = 1  # runs per trial over consecutive seeds, the objective their mean
    folds: int = 0  # or one run per cross-validation fold, the objective their mean
    sampler: dict[str, Any] = field(default_factory=lambda: {"name": "tpe"})
    pruner: dict[str, Any] = field(default_factory=lambda: {"name": "median"})
    fixed: dict[str, Any] = field(default_factory=dict)  # fit keys every trial sets
    curves: str | None = None  # a metric whose curves over steps are drawn together at the end

    @property
    def grid(self) -> dict[str, list[Any]] | None:
        """The grid sampler's search space: every combination of the choices."""
        if self.sampler["name"] != "grid":
            return None
        return {p.key: list(p.choices) for p in self.params}

    def as_record(self) -> dict[str, Any]:
        """What the study remembers of its sweep file, to refuse a rerun with a different one."""
        return {
            "params": {p.key: [p.type, p.low, p.high, p.log, p.step, list(p.choices)] for p in self.params},
            "objective": self.objective,
            "direction": self.direction,
            "repeats": self.repeats,
            "folds": self.folds,
            "fixed": self.fixed,
        }


def load_spec(path: str | Path) -> SweepSpec:
    """Read a sweep file; every mistake names the file and the field."""
    path = Path(path)
    if not path.is_file():
        raise ConfigError(f"sweep file {path} not found (the shipped ones are in configs/sweeps/)")
    raw = yaml.safe_load(path.read_text()) or {}
    where = f"sweep file {path}"
    if not isinstance(raw, dict):
        raise ConfigError(f"{where}: expected a mapping of fields, got {type(raw).__name__}")
    known = {"objective", "direction", "n_trials", "repeats", "folds", "sampler", "pruner", "params", "fixed", "curves"}
    if unknown := sorted(set(raw) - known):
        raise ConfigError(f"{where}: unknown field {unknown[0]!r} (fields: {', '.join(sorted(known))})")
    params_raw = raw.get("params")
    if not isinstance(params_raw, dict) or not params_raw:
        raise ConfigError(f"{where}: `params` must map each searched fit key to its distribution")
    params = tuple(_param(where, key, value) for key, value in params_raw.items())
    sampler = _named(where, "sampler", raw.get("sampler", "tpe"), SAMPLERS)
    pruner = _named(where, "pruner", raw.get("pruner", "median"), PRUNERS)
    if sampler["name"] == "grid" and (bad := [p.key for p in params if p.type != "categorical"]):
        raise ConfigError(f"{where}: the grid sampler needs `choices` for every key; params.{bad[0]} is a range")
    direction = raw.get("direction", "auto")
    if direction not in ("auto", "maximize", "minimize"):
        raise ConfigError(f"{where}: direction must be maximize, minimize or auto, got {direction!r}")
    fixed = raw.get("fixed") or {}
    if not isinstance(fixed, dict):
        raise ConfigError(f"{where}: `fixed` must map fit keys to values, e.g. trainer.max_epochs: 10")
    if clash := sorted(set(fixed) & {p.key for p in params}):
        raise ConfigError(f"{where}: {clash[0]} is both in `fixed` and in `params`")
    spec = SweepSpec(
        path=path,
        params=params,
        objective=str(raw.get("objective", "auto")),
        direction=direction,
        n_trials=_positive(where, "n_trials", raw.get("n_trials", 20)),
        repeats=_positive(where, "repeats", raw.get("repeats", 1)),
        folds=_folds(where, raw.get("folds", 0), raw.get("repeats", 1)),
        sampler=sampler,
        pruner=pruner,
        fixed=fixed,
        curves=raw.get("curves"),
    )
    return spec


def _param(where: str, key: str, value: Any) -> Param:
    at = f"{where}: params.{key}"
    if not isinstance(value, dict):
        raise ConfigError(f"{at}: expected a mapping such as {{type: float, low: 1.0e-4, high: 0.1, log: true}}")
    kind = value.get("type")
    if kind not in TYPES:
        raise ConfigError(f"{at}.type must be one of {', '.join(TYPES)}, got {kind!r}")
    allowed = {"type", "choices"} if kind == "categorical" else {"type", "low", "high", "log", "step"}
    if unknown := sorted(set(value) - allowed):
        raise ConfigError(f"{at}: {unknown[0]!r} does not apply to a {kind} (fields: {', '.join(sorted(allowed))})")
    if kind == "categorical":
        choices = value.get("choices")
        if not isinstance(choices, list) or not choices:
            raise ConfigError(f"{at}.choices must be a non-empty list")
        return Param(key, kind, choices=tuple(choices))
    low, high = value.get("low"), value.get("high")
    for name, number in (("low", low), ("high", high)):
        if not isinstance(number, int | float) or isinstance(number, bool) or not math.isfinite(number):
            raise ConfigError(f"{at}.{name} must be a number, got {number!r}")
        if kind == "int" and not float(number).is_integer():
            raise ConfigError(f"{at}.{name} must be a whole number for an int, got {number!r}")
    if low >= high:
        raise ConfigError(f"{at}: low ({low}) must be below high ({high})")
    log = bool(value.get("log", False))
    if log and low <= 0:
        raise ConfigError(f"{at}: a log scale needs low > 0, got {low}")
    step = value.get("step")
    if step is not None and log:
        raise ConfigError(f"{at}: step and log cannot be combined (Optuna refuses it)")
    return Param(key, kind, float(low), float(high), log, step)


def _named(where: str, field_name: str, value: Any, names: tuple[str, ...]) -> dict[str, Any]:
    options = {"name": value} if isinstance(value, str) else dict(value or {})
    if options.get("name") not in names:
        raise ConfigError(f"{where}: {field_name}.name must be one of {', '.join(names)}, got {options.get('name')!r}")
    return options


def _positive(where: str, field_name: str, value: Any) -> int:
    if not isinstance(value, int) or isinstance(value, bool) or value < 1:
        raise ConfigError(f"{where}: {field_name} must be a whole number >= 1, got {value!r}")
    return value


def _folds(where: str, value: Any, repeats: Any) -> int:
    if value in (0, None):
        return 0
    if not isinstance(value, int) or isinstance(value, bool) or value < 2:
        raise ConfigError(f"{where}: folds must be a whole number >= 2, got {value!r}")
    if repeats != 1:
        raise ConfigError(f"{where}: repeats (seeds) and folds cannot be combined; choose one")
    return value


def make_sampler(options: dict[str, Any], grid: dict[str, list[Any]] | None) -> Any:
    import optuna

    kwargs = {k: v for k, v in options.items() if k != "name"}
    name = options["name"]
    try:
        if name == "grid":
            return _grid_sampler()(grid, **kwargs)
        if name == "random":
            return optuna.samplers.RandomSampler(**kwargs)
        return optuna.samplers.TPESampler(**kwargs)
    except TypeError as err:
        raise ConfigError(f"sampler {name}: {err}") from err


def _grid_sampler() -> type:
    import optuna

    class GridSampler(optuna.samplers.GridSampler):
        """Optuna's grid, without its `study.stop()` once the grid is covered: only `study.optimize` may call
        that, and the sweep asks for no more trials than the grid has."""

        def after_trial(self, *args: Any) -> None:
            pass

    return GridSampler


def make_pruner(options: dict[str, Any]) -> Any:
    import optuna

    kwargs = {k: v for k, v in options.items() if k != "name"}
    name = options["name"]
    classes = {
        "median": optuna.pruners.MedianPruner,
        "successive_halving": optuna.pruners.SuccessiveHalvingPruner,
        "hyperband": optuna.pruners.HyperbandPruner,
        "none": optuna.pruners.NopPruner,
    }
    try:
        return classes[name](**kwargs)
    except TypeError as err:
        raise ConfigError(f"pruner {name}: {err}") from err


def open_storage(url: str, attempts: int = 5) -> Any:
    """An Optuna storage by URL. SQLite waits up to a minute for a lock: several workers share the file.

    Workers started at once on a new database each create its tables and stamp its schema version; the
    server lets one win, and the others fail in one of several ways (a duplicate key or table, two version
    rows, a version row not yet visible). Then the tables are there, and the next attempt opens them; the
    last attempt's error, if any, is the user's (a wrong URL, a server that is down).
    """
    import optuna

    engine = {"connect_args": {"timeout": 60}} if url.startswith("sqlite") else {"pool_pre_ping": True}
    for attempt in range(attempts - 1):
        try:
            return optuna.storages.RDBStorage(url, engine_kwargs=engine)
        except ImportError:  # no driver for the URL: no retry helps
            raise
        except Exception:
            time.sleep(0.5 + attempt)
    return optuna.storages.RDBStorage(url, engine_kwargs=engine)
