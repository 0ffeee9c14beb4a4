"""Which GNN layer and which node features, on a set whose class only structure shows: trees against
graphs with one cycle, with node labels drawn at random (tests/real_data.py writes it as TU files).

    .venv/bin/python -m benchmarks.graph_layers               # the table in benchmarks/README.md
    .venv/bin/python -m benchmarks.graph_layers --quick       # a smoke run: 3 epochs each

Each `conv` on the file's node labels alone (`given`) and with one-hot degree beside them (the
default), through `project.fit` with the defaults otherwise, early stopping off, the same epochs for all.
"""

import argparse
import os
import sys
import tempfile
from pathlib import Path

from benchmarks.defaults import fit
from tests.real_data import cycle_graphs

CONVS = ["gcn", "native", "gin", "sage", "gat"]
FEATURES = {"given": "[given]", "given + degree": "[given, degree]"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--epochs", type=int, default=40)
    parser.add_argument("--quick", action="store_true", help="3 epochs each")
    args = parser.parse_args()
    if args.quick:
        args.epochs = 3
    print("| conv | node features | best val/acc | s / epoch |\n|---|---|---|---|")
    with tempfile.TemporaryDirectory() as cwd:
        cycle_graphs(Path(cwd) / "tu")
        data = ["--data.source", "tu", "--data.name", "CYCLES", "--data.data_dir", "tu"]
        for conv in CONVS:
            for name, features in FEATURES.items():
                extra = [*data, "--data.node_features", features, "--model.net.init_args.conv", conv]
                extra += ["--early_stopping.patience", "null", "--trainer.max_epochs", str(args.epochs)]
                _, _, best, per_epoch = fit("gcn", [*extra, "--trainer.logger.init_args.save_dir", "logs"], cwd)
                print(f"| {conv} | {name} | {best:.3f} | {per_epoch:.2f} |", flush=True)
    print(f"\n{args.epochs} epochs each; {os.cpu_count()} CPUs, python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
