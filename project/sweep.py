"""`python -m project.sweep --model NAME --sweep configs/sweeps/NAME.yaml [options] [fit args]`: an Optuna study.

Each trial is a `project.fit` run with the sweep's values, in logs/NAME/sweeps/STUDY/trial_N/. The study lives
in its storage (sweeps/STUDY.db by default): kill the sweep and run the same command again to continue it;
start the same command on other machines with a shared `--storage` to add workers. Docs: docs/sweeps.md.
"""

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from project.errors import ConfigError, reported
from project.model_flag import find_model_flag


def main(args: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m project.sweep", add_help=False)
    parser.add_argument("--sweep", help="a sweep file (default: configs/sweeps/NAME.yaml)")
    parser.add_argument("--n_trials", type=int, help="the study's size (default: the sweep file's n_trials)")
    parser.add_argument("--study", help="the study's name (default: the sweep file's, after the model's)")
    parser.add_argument("--storage", help="an Optuna storage URL (default: sqlite:///sweeps/STUDY.db)")
    parser.add_argument("--workers", type=int, default=1, help="trials at once in this process")
    parser.add_argument("--repeats", type=int, help="seeds per trial, the objective their mean")
    parser.add_argument("--report", action="store_true", help="only print and write the study's results")
    ours, fit_args = parser.parse_known_args(sys.argv[1:] if args is None else args)
    model, index, span = find_model_flag(fit_args)
    if model is None:
        raise ConfigError(
            "--model NAME is required (python -m project.sweep --model cnn --sweep configs/sweeps/cnn.yaml)"
        )
    fit_args = [*fit_args[:index], *fit_args[index + span :]]
    if ours.workers < 1:
        raise ConfigError(f"--workers must be >= 1, got {ours.workers}")

    from project.sweeps.checks import check_sweep
    from project.sweeps.report import write_report
    from project.sweeps.spec import load_spec
    from project.sweeps.study import Sweeper, SweepSettings, open_study

    spec = load_spec(ours.sweep or default_sweep(model))
    checked = check_sweep(model, spec, fit_args)
    name = ours.study or (spec.path.stem if spec.path.stem == model else f"{model}-{spec.path.stem}")
    storage = ours.storage or f"sqlite:///{(Path('sweeps') / f'{name}.db').resolve()}"
    if storage.startswith("sqlite:///"):
        Path(storage.removeprefix("sqlite:///")).parent.mkdir(parents=True, exist_ok=True)
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
        repeats=ours.repeats or spec.repeats,
    )
    study = open_study(settings)
    code = 0
    if not ours.report:
        print(
            f"Sweep {name}: {n_trials} trials of --model {model}, {checked.objective} ({checked.mode}), "
            f"{ours.workers} worker(s); storage {storage}\n  trials: {settings.folder}/trial_N/"
        )
        code = Sweeper(settings, study).run()
    write_report(study, spec, settings.folder, checked.base_args, storage)
    return code


def default_sweep(model: str) -> Path:
    from project.registry import CONFIG_DIR

    path = CONFIG_DIR / "sweeps" / f"{model}.yaml"
    if not path.is_file():
        shipped = ", ".join(sorted(p.name for p in path.parent.glob("*.yaml")))
        raise ConfigError(f"no sweep file for --model {model} ({path}): pass --sweep FILE (shipped: {shipped})")
    return path


def _grid_size(grid: dict[str, list]) -> int:
    size = 1
    for choices in grid.values():
        size *= len(choices)
    return size


if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
