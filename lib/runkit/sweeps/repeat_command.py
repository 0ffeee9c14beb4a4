"""`python -m project.repeat --model NAME --seeds 5 | --folds 5 [fit args]`: one config, several runs, mean ± std.

`--seeds N` trains with seed_everything = S, S+1, ... (S: the config's); the data's split stays. `--folds K`
pools the training and validation samples of the DataModule's seeded split and validates on each of K parts
in turn (runkit/sweeps/cross_validation.py). Runs land in logs/NAME/repeats/LABEL/{seed_S,fold_K}/; run
the same command again to resume an interrupted one and skip the finished. Docs: docs/sweeps.md.
"""

import argparse
import csv
import sys
from collections.abc import Sequence

from runkit import ConfigError
from runkit.cli.model_flag import config_files, find_model_flag
from runkit.cli.registry import CommandLine


def main(commands: CommandLine, args: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m project.repeat", add_help=False)
    group = parser.add_mutually_exclusive_group(required=True)
    group.add_argument("--seeds", type=int, help="runs with consecutive seeds")
    group.add_argument("--folds", type=int, help="k-fold cross-validation")
    parser.add_argument("--fold_seed", type=int, default=0, help="the seed the folds are cut by")
    parser.add_argument("--name", help="the runs' folder under logs/NAME/repeats/ (default: seeds5, folds5...)")
    ours, fit_args = parser.parse_known_args(sys.argv[1:] if args is None else args)
    model, _, _ = find_model_flag(fit_args)
    if model is None and not config_files(fit_args):
        raise ConfigError("--model NAME or --config FILE is required (python -m project.repeat --model cnn --seeds 5)")
    count = ours.seeds or ours.folds
    if count < (1 if ours.seeds else 2):
        raise ConfigError(f"--{'seeds' if ours.seeds else 'folds'} must be >= {1 if ours.seeds else 2}, got {count}")

    from runkit.sweeps.checks import REFUSED
    from runkit.sweeps.repeats import summary_line
    from runkit.sweeps.runs import STOPPED_CODES, repeated_runs
    from runkit.trackers.stacking import runs_root

    if refused := [a for a in fit_args if a.split("=", 1)[0].startswith(REFUSED)]:
        raise ConfigError(f"{refused[0].split('=', 1)[0]} is set by project.repeat for each run: leave it out")
    built = commands.compose(fit_args)  # checks the whole command line (and the data) before the first run
    task, config = built.model.task, built.config
    refused = getattr(built.datamodule, "folds_refused", "it is not one of the template's DataModules")
    if ours.folds and refused:
        raise ConfigError(f"--folds: {type(built.datamodule).__name__} has no cross-validation folds: {refused}")
    label = ours.name or (f"seeds{count}" if ours.seeds else f"folds{count}")
    folder = runs_root(config.trainer, model or "model") / "repeats" / label
    seed = config.get("seed_everything") or 0
    runs = repeated_runs(
        commands.registry.package, folder, fit_args, seed, ours.seeds or 0, ours.folds or 0, ours.fold_seed
    )
    print(f"Repeat: {count} runs ({label}), {task.monitor} ({task.mode}); runs: {folder}/")
    rows, failed = [], 0
    for run in runs:
        if not run.finished:
            print(f"  {run.folder.name}: training ...", flush=True)
            code = run.start().wait()
            if code != 0:
                failed += 1
                print(f"  {run.folder.name}: FAILED (exit {code}): {run.error()}  [{run.folder / 'output.log'}]")
                if code in STOPPED_CODES:
                    return code  # stopped by a signal: rerun the command to resume
                continue
            run.mark_finished()
        best, epochs = run.best(task.monitor, task.mode), run.epochs
        if best is None:
            failed += 1
            print(f"  {run.folder.name}: logged no {task.monitor}")
            continue
        final = epochs[max(epochs)]
        rows.append([run.folder.name, best[0], best[1], final.get(task.monitor), len(epochs), final])
        print(
            f"  {run.folder.name}: best {task.monitor} {best[0]:.4f} (epoch {best[1]}), final {final[task.monitor]:.4f}"
        )
    if not rows:
        print("No run finished.")
        return 1
    print(f"\n{len(rows)} runs:")
    print(summary_line(f"best {task.monitor}", [r[1] for r in rows]))
    print(summary_line(f"final {task.monitor}", [r[3] for r in rows]))
    others = sorted({name for r in rows for name in r[5] if name != task.monitor and not name.endswith("_best")})
    for name in others:
        if all(name in r[5] for r in rows):
            print(summary_line(f"final {name}", [r[5][name] for r in rows]))
    with open(folder / "runs.csv", "w", newline="") as out:
        writer = csv.writer(out)
        writer.writerow(["run", f"best {task.monitor}", "best epoch", f"final {task.monitor}", "epochs", *others])
        writer.writerows([[*r[:5], *(r[5].get(name, "") for name in others)] for r in rows])
    print(f"  table: {folder / 'runs.csv'}")
    return 1 if failed else 0
