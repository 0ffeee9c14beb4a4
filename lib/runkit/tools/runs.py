"""`python -m project.runs [FOLDER ...] [--csv FILE]`: one row per run under the folders (default logs/).

Read from the run folders alone (config.yaml, status.json, the TensorBoard events), no server: version, start,
status, epochs, the settings that differ between the listed runs, the best and last monitored metric, the test
metrics.
"""

import argparse
import csv
import datetime
import json
import math
import socket
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from runkit import ConfigError
from runkit.callbacks.run_status import alive, read_status
from runkit.tools.table import markdown, short_names

# Keys every run has its own value for, or that say where, not how: left out of the comparison.
OWN = ("trainer.logger", "trainer.callbacks", "ckpt_path", "config", "run_dir", "trainer.enable_progress_bar")


def find_runs(roots: Sequence[Path]) -> list[Path]:
    """Every folder under `roots` with a resolved config.yaml (what `project.fit` writes into a run folder)."""
    found = {path.parent for root in roots for path in root.rglob("config.yaml")}
    return sorted(found, key=lambda folder: (read_status(folder).get("started", math.inf), str(folder)))


def flatten(config: Any, prefix: str = "") -> dict[str, str]:
    """`{"model.init_args.net.init_args.hidden_size": "64", ...}`: every leaf of a config, as text."""
    if isinstance(config, dict):
        flat: dict[str, str] = {}
        for key, value in config.items():
            flat.update(flatten(value, f"{prefix}{key}."))
        return flat
    return {prefix.rstrip("."): json.dumps(config) if isinstance(config, list) else str(config)}


def status_of(folder: Path) -> str:
    status = read_status(folder)
    state = status.get("status", "unknown")
    if state == "running" and status.get("host") == socket.gethostname() and not alive(status.get("pid")):
        return "killed"  # its process is gone without a word: resume it with --ckpt_path last
    return state


def scalars(folder: Path) -> dict[str, list[float]]:
    """Each scalar tag of the run's TensorBoard events, its values in step order."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    values: dict[str, list[float]] = {}
    for events_file in sorted(folder.glob("events.out.tfevents.*")):
        events = EventAccumulator(str(events_file), size_guidance={"scalars": 0})
        events.Reload()
        for tag in events.Tags().get("scalars", []):
            values.setdefault(tag, []).extend(point.value for point in events.Scalars(tag))
    return values


def run_rows(folders: Sequence[Path], root: Path) -> tuple[list[str], list[list[str]]]:
    configs = [flatten(yaml.safe_load((f / "config.yaml").read_text()) or {}) for f in folders]
    keys = sorted({k for c in configs for k in c if not k.startswith(OWN)})
    differ = [k for k in keys if len({c.get(k) for c in configs}) > 1]
    names = short_names(differ)
    found = [scalars(f) for f in folders]
    monitors = [
        next((t.removesuffix("_best") for t in s if t.startswith("val/") and t.endswith("_best")), None) for s in found
    ]
    tests = sorted({t for s in found for t in s if t.startswith("test/") and not t.endswith("loss")})
    header = ["run", "started", "status", "epochs", *names.values(), "monitor", "best", "last", *tests]
    rows = []
    for folder, config, values, monitor in zip(folders, configs, found, monitors, strict=True):
        status = read_status(folder)
        started = status.get("started")
        epochs = status.get("epochs", len(values.get(monitor, [])) if monitor else 0)
        rows.append(
            [
                str(folder.relative_to(root)) if folder.is_relative_to(root) else str(folder),
                datetime.datetime.fromtimestamp(started).strftime("%Y-%m-%d %H:%M") if started else "",
                status_of(folder),
                str(epochs),
                *(config.get(k, "") for k in differ),
                monitor or "",
                _cell(values.get(f"{monitor}_best", [None])[-1]),
                _cell(values.get(monitor, [None])[-1]),
                *(_cell(values.get(t, [None])[-1]) for t in tests),
            ]
        )
    return header, rows


def main(args: Sequence[str] | None = None, *, package: str) -> int:
    parser = argparse.ArgumentParser(prog=f"python -m {package}.runs", description=__doc__.splitlines()[0])
    parser.add_argument("folders", nargs="*", default=["logs"], help="where the runs are (default: logs)")
    parser.add_argument("--csv", help="also write the table to this CSV file")
    ours = parser.parse_args(sys.argv[1:] if args is None else args)
    roots = [Path(f) for f in ours.folders]
    if missing := [str(r) for r in roots if not r.is_dir()]:
        raise ConfigError(f"no folder {missing[0]} (runs land in logs/NAME/version_N/)")
    folders = find_runs(roots)
    if not folders:
        print(f"No runs under {', '.join(map(str, roots))} (a run folder holds the config.yaml {package}.fit writes).")
        return 0
    header, rows = run_rows(folders, roots[0] if len(roots) == 1 else Path.cwd())
    print(markdown(header, rows))
    if ours.csv:
        with open(ours.csv, "w", newline="") as out:
            csv.writer(out).writerows([header, *rows])
        print(f"\nwritten to {ours.csv}")
    return 0


def _cell(value: float | None) -> str:
    return "" if value is None else f"{value:.4f}"
