"""Start-up cost: `python -m project.fit --model X --trainer.fast_dev_run 1` against `import lightning.pytorch`.

    .venv/bin/python -m benchmarks.startup            # the README's table
    .venv/bin/python -m benchmarks.startup --quick    # a smoke run

Both measured in the same run, interleaved, medians; the ratio is what holds across machines.
"""

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

from project.registry import REGISTRY

BASELINE = [sys.executable, "-c", "import lightning.pytorch"]


def wall(command: list[str], cwd: str) -> float:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, check=True, capture_output=True)
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one family, one repetition")
    args = parser.parse_args()
    families, reps = (REGISTRY.families()[:1], 1) if args.quick else (REGISTRY.families(), 3)
    print("| command | s (median) | vs import lightning.pytorch |")
    print("|---|---|---|")
    with tempfile.TemporaryDirectory() as cwd:
        env_python = [sys.executable, "-m", "project.fit", "--trainer.fast_dev_run", "1"]
        commands = {"import lightning.pytorch": BASELINE}
        commands |= {f"fit --model {f} --trainer.fast_dev_run 1": [*env_python, "--model", f] for f in families}
        for command in commands.values():  # warm-up: file caches, data generation
            wall(command, cwd)
        times: dict[str, list[float]] = {name: [] for name in commands}
        for _ in range(reps):
            for name, command in commands.items():
                times[name].append(wall(command, cwd))
        base = statistics.median(times["import lightning.pytorch"])
        for name in commands:
            seconds = statistics.median(times[name])
            print(f"| `{name}` | {seconds:.2f} | {seconds / base:.2f}× |")
    print(f"\n{os.cpu_count()} CPUs, python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
