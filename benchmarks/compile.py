"""`torch.compile` on each family's network: train and inference step time, and compile time.

    .venv/bin/python -m benchmarks.compile            # the README's table
    .venv/bin/python -m benchmarks.compile --quick    # a smoke run

One fixed batch of each family's default data, stepped repeatedly, so shapes never change and
nothing recompiles; eager and compiled copies start from the same weights. Medians of 20 steps.
"""

import argparse
import copy
import os
import statistics
import tempfile
import time

import torch
import torch.nn.functional as F

from benchmarks.parity import silenced
from project.cli import build
from project.registry import REGISTRY

OVERRIDES = {
    "cnn": ["--data.num_train=256", "--data.num_val=64"],  # part: cnn
    "lstm": [
        "--data.synthetic_samples=400",
        "--model.net.bidirectional=false",
        "--model.net.sequence_mode=padded",
    ],  # part: lstm
    "gcn": ["--data.num_graphs=400"],  # part: gcn
}


def step_times(net: torch.nn.Module, inputs: tuple, target: torch.Tensor, train: bool, steps: int) -> list[float]:
    optimizer = torch.optim.SGD(net.parameters(), lr=1e-3)
    net.train(train)
    times = []
    for _ in range(steps):
        start = time.perf_counter()
        if train:
            optimizer.zero_grad()
            F.cross_entropy(net(*inputs), target).backward()
            optimizer.step()
        else:
            with torch.no_grad():
                net(*inputs)
        times.append(time.perf_counter() - start)
    return times


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="one family, few steps")
    args = parser.parse_args()
    families, steps = (REGISTRY.families()[:1], 3) if args.quick else (REGISTRY.families(), 20)
    print("| family | mode | eager ms/step | compiled ms/step | speed-up | compile s |")
    print("|---|---|---|---|---|---|")
    os.chdir(tempfile.mkdtemp())
    for family in families:
        with silenced():
            cli = build(family, "--trainer.logger=false", "--trainer.callbacks=[]", *OVERRIDES[family])
        cli.datamodule.prepare_data()
        cli.datamodule.setup("fit")
        inputs, target, _ = cli.model.unpack(next(iter(cli.datamodule.train_dataloader())))
        for train in (True, False):
            eager = copy.deepcopy(cli.model.net)
            compiled = copy.deepcopy(cli.model.net)
            compiled.compile()
            first = step_times(compiled, inputs, target, train, 1)[0]  # compiles
            eager_ms = statistics.median(step_times(eager, inputs, target, train, steps)) * 1e3
            compiled_ms = statistics.median(step_times(compiled, inputs, target, train, steps)) * 1e3
            mode = "train" if train else "inference"
            print(
                f"| {family} | {mode} | {eager_ms:.2f} | {compiled_ms:.2f} | {eager_ms / compiled_ms:.2f}× "
                f"| {first - compiled_ms / 1e3:.1f} |"
            )


if __name__ == "__main__":
    main()
