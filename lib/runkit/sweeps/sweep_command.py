"""`python -m project.sweep --model NAME --sweep configs/sweeps/NAME.yaml [options] [fit args]`: an Optuna study.

Each trial is a `project.fit` run with the sweep's values, in logs/NAME/sweeps/STUDY/trial_N/. The study lives
in its storage (sweeps/STUDY.db by default): kill the sweep and run the same command again to continue it;
start the same command on other machines with a shared `--storage` to add workers. Docs: docs/sweeps.md.
"""

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from runkit import ConfigError
from runkit.cli.model_flag import find_model_flag
from runkit.cli.registry import CommandLine


def main(commands: CommandLine, args: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m project.sweep", add_help=False)
    parser.add_argument("--sweep", help="a sweep file (default: configs/sweeps/NAME.yaml)")
    parser.add_argument("--n_trials", type=int, help="the study's size (default: the sweep file's n_trials)")
    parser.add_argument("--study", help="the study's name (default: the sweep file's, after the model's)")
    parser.add_argument("--storage", help="an Optuna storage URL (default: sqlite:///sweeps/STUDY.db)")
    parser.add_argument("--workers", type=int, default=1, help="trials at once in this process")
    parser.add_argument("--repeats", type=int, help="runs per trial over seeds, the objective their mean")
    parser.add_argument(
        "--folds", type=int, help="runs per trial over cross-validation folds, the objective their mean"
    )
    parser.add_argument("--report", action="store_true", help="only print and write the study's results")
    parser.add_argument("--check", action="store_true", help="check the sweep file and arguments; run nothing")
    ours, fit_args = parser.parse_known_args(sys.argv[1:] if args is None else args)
    model, index, span = find_model_flag(fit_args)
    if model is None:
        raise ConfigError(
            "--model NAME is required (python -m project.sweep --model cnn --sweep configs/sweeps/cnn.yaml)"
        )
    fit_args = [*fit_args[:index], *fit_args[index + span :]]
    for flag, value, least in (("workers", ours.workers, 1), ("repeats", ours.repeats, 1), ("folds", ours.folds, 2)):
        if value is not None and value < least:
            raise ConfigError(f"--{flag} must be >= {least}, got {value}")
    if ours.repeats and ours.folds:
        raise ConfigError("--repeats (seeds) and --folds cannot be combined; choose one")

    from runkit.sweeps.checks import check_sweep
    from runkit.sweeps.report import write_report
    from runkit.sweeps.spec import load_spec
    from runkit.sweeps.study import Sweeper, SweepSettings, open_study

    spec = load_spec(ours.sweep or default_sweep(commands.registry.config_dir, model))
    checked = check_sweep(commands, model, spec, fit_args)
    name = ours.study or (spec.path.stem if spec.path.stem == model else f"{model}-{spec.path.stem}")
    storage = ours.storage or f"sqlite:///{(Path('sweeps') / f'{name}.db').resolve()}"
    n_trials = ours.n_trials or (spec.n_trials if spec.grid is None else _grid_size(spec.grid))
    settings = SweepSettings(
        model=model,
        spec=spec,
        checked=checked,
        study=name,
        storage=storage,
        folder=Path(checked.logs) / "sweeps" / name,
        n_trials=n_trials,
        workers=ours.workers,
        repeats=ours.repeats or (1 if ours.folds else spec.repeats),
        folds=ours.folds or (0 if ours.repeats else spec.folds),
        package=commands.registry.package,
    )
    if settings.folds and checked.folds_refused:
        raise ConfigError(f"--folds: the data has no cross-validation folds: {checked.folds_refused}")
    if ours.check:
        keys = ", ".join(p.key for p in spec.params)
        print(f"Sweep {name} checked: {n_trials} trials over {keys}; {checked.objective} ({checked.mode}); {storage}")
        return 0
    if storage.startswith("sqlite:///"):
        Path(storage.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
    study = open_study(settings, create=not ours.report)
    code = 0
    if not ours.report:
        print(
            f"Sweep {name}: {n_trials} trials of --model {model}, {checked.objective} ({checked.mode}), "
            f"{ours.workers} worker(s); storage {storage}\n  trials: {settings.folder}/trial_N/"
        )
        code = Sweeper(settings, study).run()
    # A report reads the study as it was started (its own arguments), whatever this command line adds.
    base_args = study.user_attrs.get("setup", {}).get("args", checked.base_args) if ours.report else checked.base_args
    write_report(study, spec, settings.folder, base_args, storage, commands.parse)
    return code


def default_sweep(config_dir: Path, model: str) -> Path:
    path = config_dir / "sweeps" / f"{model}.yaml"
    if not path.is_file():
        shipped = ", ".join(sorted(p.name for p in path.parent.glob("*.yaml")))
        raise ConfigError(f"no sweep file for --model {model} ({path}): pass --sweep FILE (shipped: {shipped})")
    return path


def _grid_size(grid: dict[str, list]) -> int:
    size = 1
    for choices in grid.values():
        size *= len(choices)
    return size
