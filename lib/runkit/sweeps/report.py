"""A study's results: a table (console and CSV), the best trial's config, Optuna's plots, and the dashboard."""

import csv
import importlib.util
import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

from runkit.sweeps.runs import key_args
from runkit.sweeps.spec import SweepSpec
from runkit.tools.table import markdown, short_names

PLOTS = {
    "history.png": "plot_optimization_history",
    "importances.png": "plot_param_importances",
    "slice.png": "plot_slice",
}


def trial_rows(study: Any, spec: SweepSpec) -> tuple[list[str], list[list[str]]]:
    """One row per trial: number, state, each searched value, the objective, epochs run, duration."""
    names = short_names([p.key for p in spec.params])
    header = ["trial", "state", *names.values(), study.user_attrs.get("objective", "objective"), "epochs", "duration_s"]
    rows = []
    for trial in study.get_trials(deepcopy=False):
        duration = trial.duration.total_seconds() if trial.duration else None
        value = trial.value if trial.value is not None else (_last(trial) if trial.state.name == "PRUNED" else None)
        rows.append(
            [
                str(trial.number),
                trial.state.name.lower(),
                *(_cell(trial.params.get(key)) for key in names),
                _cell(value),
                str(trial.user_attrs.get("epochs", len(trial.intermediate_values) or "")),
                f"{duration:.0f}" if duration is not None else "",
            ]
        )
    return header, rows


def write_report(
    study: Any, spec: SweepSpec, folder: Path, base_args: list[str], storage: str, parse: Callable[[list[str]], Any]
) -> dict[str, Path]:
    """Print the table and write trials.csv, best.yaml and the plots into `folder`; returns what was written.
    `parse`: the project's command-line parser (`Commands.parse`), which resolves the best trial's config."""
    folder.mkdir(parents=True, exist_ok=True)
    header, rows = trial_rows(study, spec)
    print(f"\nStudy {study.study_name}: {len(rows)} trials\n\n{markdown(header, rows)}\n")
    written = {"table": folder / "trials.csv"}
    with open(written["table"], "w", newline="") as out:
        csv.writer(out).writerows([header, *rows])
    best = best_trial(study)
    if best is not None:
        written["best"] = folder / "best.yaml"
        threads = best.user_attrs.get("threads")
        command = f"{f'OMP_NUM_THREADS={threads} ' if threads else ''}python -m project.fit --config {written['best']}"
        best_args = [*base_args, *key_args(best.params)]
        write_best_config(written["best"], parse(best_args), best.number, study.study_name, command)
        print(f"Best: trial {best.number}, {study.user_attrs.get('objective', 'objective')} {best.value:.4f}")
        print(f"  its config:   {written['best']}")
        print(f"  train it:     {command}")
    written.update(write_plots(study, folder))
    if spec.curves and (curves := write_curves(study, spec.curves, folder / "curves.png")) is not None:
        written["curves"] = curves
    for name, path in written.items():
        if name not in ("table", "best"):
            print(f"  {name + ':':<13} {path}")
    print(f"  table:        {written['table']}")
    if importlib.util.find_spec("optuna_dashboard") is not None:
        print(f"  dashboard:    optuna-dashboard {storage}")
    else:
        print(f"  dashboard:    pip install optuna-dashboard, then optuna-dashboard {storage}")
    return written


def write_best_config(path: Path, cli: Any, number: int, study: str, command: str) -> None:
    """The best trial's whole config, resolved, for `python -m project.fit --config best.yaml`."""
    text = cli.parser.dump(cli.config, skip_none=False)
    path.write_text(
        f"# The best trial ({number}) of study {study}: its whole config, resolved. Trained again with the same\n"
        f"# thread count (CPU float sums change order with it), it ends with the same objective:\n# {command}\n{text}"
    )


def write_plots(study: Any, folder: Path) -> dict[str, Path]:
    """Optuna's matplotlib plots of the finished trials; a plot that needs more trials is skipped, and said."""
    import warnings

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import optuna.visualization.matplotlib as plots
    from optuna.exceptions import ExperimentalWarning

    complete = [t for t in study.get_trials(deepcopy=False) if t.state.name == "COMPLETE"]
    written = {}
    for name, function in PLOTS.items():
        if name == "importances.png" and (len(complete) < 2 or len(study.best_trial.params) < 2):
            print(f"  ({name} needs 2 complete trials and 2 searched keys)")
            continue
        if not complete:
            continue
        with warnings.catch_warnings():
            # Optuna marks its matplotlib plots experimental; one parameter's slice has a flat axis.
            warnings.simplefilter("ignore", ExperimentalWarning)
            warnings.simplefilter("ignore", UserWarning)
            axes = getattr(plots, function)(study)
            panels = len(axes.flat) if hasattr(axes, "flat") else 1
            figure = (axes.flat[0] if hasattr(axes, "flat") else axes).get_figure()
            figure.set_size_inches(max(6.4, 4.2 * panels), 4.8)  # one key per panel, their names legible
            figure.savefig(folder / name, dpi=100, bbox_inches="tight")
        plt.close(figure)
        written[name.removesuffix(".png")] = folder / name
    return written


def write_curves(study: Any, metric: str, path: Path) -> Path | None:
    """`metric` over training steps for every trial in one plot, from each trial's TensorBoard events."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    figure, ax = plt.subplots(figsize=(7, 4.5))
    drawn = 0
    # In the order of their values, largest first: the legend reads down the grid of learning rates.
    order = lambda t: [(-v, "") if isinstance(v, int | float) else (0, str(v)) for v in t.params.values()]  # noqa: E731
    for trial in sorted(study.get_trials(deepcopy=False), key=order):
        folder = trial.user_attrs.get("folder")
        if folder is None or not Path(folder).is_dir():
            continue
        events = EventAccumulator(folder, size_guidance={"scalars": 0})
        events.Reload()
        if metric not in events.Tags().get("scalars", []):
            continue
        points = events.Scalars(metric)
        label = ", ".join(f"{k.rsplit('.', 1)[-1]}={_cell(v)}" for k, v in trial.params.items())
        ax.plot([p.step for p in points], [p.value for p in points], label=f"{label} ({trial.state.name.lower()})")
        drawn += 1
    if not drawn:
        plt.close(figure)
        print(f"  (no trial logged {metric}: no curves)")
        return None
    ax.set_xlabel("step")
    ax.set_ylabel(metric)
    ax.set_yscale("log")
    ax.legend(fontsize=8)
    ax.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(path, dpi=100)
    plt.close(figure)
    return path


def best_trial(study: Any) -> Any:
    """The study's best complete trial, or None before the first."""
    try:
        return study.best_trial
    except ValueError:
        return None


def _last(trial: Any) -> float | None:
    values = trial.intermediate_values
    return values[max(values)] if values else None


def _cell(value: Any) -> str:
    if value is None:
        return ""
    if isinstance(value, float):
        return "nan" if math.isnan(value) else f"{value:.4g}"
    return str(value)
