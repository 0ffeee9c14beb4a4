"""Does training at the LR range test's suggestion do at least as well as the config's own LR?

    .venv/bin/python -m benchmarks.lr_suggestion                       # every case: lib/docs/diagnostics.md
    .venv/bin/python -m benchmarks.lr_suggestion --only lstm digits_32 --seed 1

For each case, the range test (`project.lr_find`'s, 100 steps from 1e-6 to 1, or `--num_training`) runs once,
each rule of lib/runkit/tools/lr_find.py reads a suggestion off the same curve, and `python -m project.fit` trains
with the config's LR and with each suggestion (`--model.optimizer.init_args.lr`), everything else as the config says.
The cases are the real-data board's image and numeric-sequence cases and a molecule case (benchmarks/real_data.py
writes their data), and the LSTM's and GCN's generated defaults. A rule that suggests nothing trains nothing.
"""

import argparse
import contextlib
import os
import sys
import tempfile
from pathlib import Path

from runkit.tools.lr_find import LR_FLAG, RULES, range_test

from benchmarks.parity import silenced
from benchmarks.real_data import CASES, LAUNCH, tested_metrics
from project.cli import compose
from project.registry import CONFIG_DIR

BOARD = ["digits_32", "digits_64_half", "digits_96_quarter", "faces", "textures", "japanese_vowels", "gunpoint",
         "solubility_classes"]  # fmt: skip
DEFAULTS = {"lstm": "lstm", "gcn": "gcn"}  # the generated defaults: a name, its model, no data arguments


def config_lr(model: str) -> float:
    import yaml

    return float(yaml.safe_load((CONFIG_DIR / f"{model}.yaml").read_text())["model"]["init_args"]["optimizer"][
        "init_args"]["lr"])  # fmt: skip


def test_metric(model: str, args: list[str], folder: Path) -> float:
    result = LAUNCH(["-m", "project.fit", "--model", model, *args, "--trainer.enable_progress_bar=false"], folder)
    if result.returncode != 0:
        raise RuntimeError(f"project.fit --model {model} exited {result.returncode}:\n{result.stdout[-3000:]}")
    metrics = tested_metrics(result.stdout)
    return metrics.get("test/acc", next(iter(metrics.values())))


def measure(name: str, root: Path, seed: int, steps: int = 100, rules: list[str] | None = None) -> dict[str, object]:
    folder = root / name
    folder.mkdir(parents=True)
    case = next((c for c in CASES if c.name == name), None)
    model = case.model if case else DEFAULTS[name]
    args = [*(case.write(folder, False) if case else []), f"--seed_everything={seed}"]
    with contextlib.chdir(folder), silenced():
        test = range_test(compose, ["--model", model, *args, "--trainer.enable_progress_bar=false"], 1e-6, 1.0, steps)
    suggested = {rule: RULES[rule](test.lrs, test.losses, test.configured) for rule in rules or RULES}
    row: dict[str, object] = {"case": name, "model": model, "config": config_lr(model)}
    trained: dict[float, float] = {}
    for label, lr in [("config", row["config"]), *suggested.items()]:
        if lr is not None and round(lr, 12) not in trained:
            trained[round(lr, 12)] = test_metric(model, [*args, LR_FLAG, f"{lr:.3g}"], folder)
        row[label] = (lr, trained[round(lr, 12)] if lr is not None else None)
        print(f"{name}: {label} lr {lr} -> {row[label][1]}", file=sys.stderr, flush=True)
    return row


def table(rows: list[dict[str, object]], rules: list[str]) -> str:
    lines = [
        "| case | model | config's LR: test acc | " + " | ".join(f"`{r}`: LR, test acc" for r in rules) + " |",
        "|---|---|---|" + "---|" * len(rules),
    ]
    for row in rows:
        cells = []
        for label in ["config", *rules]:
            lr, acc = row[label]
            cells.append("none" if lr is None else f"{lr:.3g}: {acc:.3f}")
        lines.append(f"| {row['case']} | {row['model']} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    names = [*BOARD, *DEFAULTS]
    parser.add_argument("--only", nargs="+", choices=names, help="these cases only")
    parser.add_argument("--seed", type=int, default=42, help="seeds the range test and every training")
    parser.add_argument("--num_training", type=int, default=100, help="the range test's steps (lr_find's)")
    parser.add_argument("--rules", nargs="+", choices=sorted(RULES), default=list(RULES), help="these rules only")
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as root:
        rows = [measure(name, Path(root), args.seed, args.num_training, args.rules) for name in (args.only or names)]
    print(table(rows, args.rules))
    for rule in args.rules:
        kept = [r for r in rows if r[rule][0] is not None]
        as_good = sum(r[rule][1] >= r["config"][1] for r in kept)
        print(f"{rule}: at least the config's test acc in {as_good} of {len(kept)} cases with a suggestion")
    steps = f"{args.num_training} range-test steps"
    print(f"seed {args.seed}, {steps}, {os.cpu_count()} CPUs, python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
