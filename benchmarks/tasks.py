"""Each task's default model trained from scratch as the README runs it: its metrics at the best checkpoint,
wall time and peak memory.

    .venv/bin/python -m benchmarks.tasks                      # every model whose task is not multiclass
    .venv/bin/python -m benchmarks.tasks NAME [NAME ...]      # some of them

Each model runs in its own process (`--one NAME`), so the peak resident memory is that run's alone.
"""

import argparse
import json
import resource
import subprocess
import sys
import tempfile
import time

from project.registry import CONFIG_DIR, MODELS, REGISTRY


def one(name: str) -> dict[str, float]:
    """`python -m project.fit --model NAME`, then the best checkpoint validated: what the README's command gives."""
    from project.cli import build

    start = time.perf_counter()
    cli = build(name, "--trainer.enable_progress_bar=false")
    cli.trainer.fit(cli.model, cli.datamodule)
    wall = time.perf_counter() - start
    metrics = cli.trainer.validate(cli.model, cli.datamodule, ckpt_path="best", verbose=False)[0]
    return {
        **{k: float(v) for k, v in metrics.items() if k != "val/loss"},
        "epochs": cli.trainer.current_epoch,
        "wall_s": wall,
        "peak_rss_gb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 2**20,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("models", nargs="*", help="default: every model whose task is not multiclass")
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print("RESULT " + json.dumps(one(args.one)))
        return
    names = args.models or [name for name in MODELS if REGISTRY.task(name) != "multiclass"]
    print("| model | task | metrics at the best checkpoint | epochs | wall s | peak RSS GB |")
    print("|---|---|---|---|---|---|")
    for name in names:
        with tempfile.TemporaryDirectory() as folder:  # logs/ and data/ of its own
            done = subprocess.run(
                [sys.executable, "-m", "benchmarks.tasks", "--one", name],
                cwd=folder,
                capture_output=True,
                text=True,
                check=True,
                env={"PYTHONPATH": str(CONFIG_DIR.parent), "PATH": "/usr/bin:/bin"},
            )
        result = json.loads(done.stdout.split("RESULT ", 1)[1])
        shown = ", ".join(f"{k} {v:.3f}" for k, v in result.items() if k.startswith("val/"))
        print(
            f"| {name} | {REGISTRY.task(name)} | {shown} | {result['epochs']} | {result['wall_s']:.1f} "
            f"| {result['peak_rss_gb']:.2f} |",
            flush=True,
        )


if __name__ == "__main__":
    main()
