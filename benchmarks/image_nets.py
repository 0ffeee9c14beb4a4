"""The image networks' training step on the CPU: SimpleCNN (the default) against the ResNet, in memory layouts
and precisions, at the sides the board uses. Time per step (forward, backward, AdamW) of a batch of 64.

    .venv/bin/python -m benchmarks.image_nets            # the README's table
    .venv/bin/python -m benchmarks.image_nets --quick    # a smoke run

Variants run interleaved (A B C A B C ...) and report medians, so a noisy machine shifts all alike. Each row
is what the network's own options give (`channels_last`); bf16 is `--trainer.precision bf16-mixed`.
"""

import argparse
import statistics
import time
from collections.abc import Callable

import torch
from torch import nn

from project.nets.cnn import SimpleCNN
from project.nets.resnet import ResNet

VARIANTS: dict[str, tuple[Callable[[int], nn.Module], bool]] = {
    "SimpleCNN (the default)": (lambda size: SimpleCNN(4, image_size=size), False),
    "ResNet [16, 32, 64, 128], contiguous": (
        lambda size: ResNet(4, widths=(16, 32, 64, 128), image_size=size, channels_last=False),
        False,
    ),
    "ResNet [16, 32, 64, 128], channels_last (its default)": (
        lambda size: ResNet(4, widths=(16, 32, 64, 128), image_size=size),
        False,
    ),
    "the same, bf16 autocast": (lambda size: ResNet(4, widths=(16, 32, 64, 128), image_size=size), True),
}


def step(net: nn.Module, optimizer: torch.optim.Optimizer, images: torch.Tensor, bf16: bool) -> float:
    labels = torch.zeros(len(images), dtype=torch.long)
    start = time.perf_counter()
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        loss = nn.functional.cross_entropy(net(images), labels)
    optimizer.zero_grad()
    loss.backward()
    optimizer.step()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes and rounds: a smoke run")
    args = parser.parse_args()
    sizes, rounds, batch = ((32,), 2, 4) if args.quick else ((32, 64, 96, 224), 12, 64)
    print(f"torch {torch.__version__}, {torch.get_num_threads()} threads, batch {batch}, median of {rounds} steps")
    print("| network | " + " | ".join(f"{s} px ms / step" for s in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    results: dict[str, list[float]] = {name: [] for name in VARIANTS}
    for size in sizes:
        torch.manual_seed(0)
        images = torch.randn(batch, 3, size, size)
        built = {name: make(size) for name, (make, _) in VARIANTS.items()}
        optimizers = {name: torch.optim.AdamW(net.parameters()) for name, net in built.items()}
        times: dict[str, list[float]] = {name: [] for name in VARIANTS}
        for i in range(rounds + 2):  # two rounds of warm-up, then measured
            for name, (_, bf16) in VARIANTS.items():
                seconds = step(built[name], optimizers[name], images, bf16)
                if i >= 2:
                    times[name].append(seconds)
        for name in VARIANTS:
            results[name].append(statistics.median(times[name]) * 1000)
    for name, row in results.items():
        print(f"| {name} | " + " | ".join(f"{ms:.0f}" for ms in row) + " |")


if __name__ == "__main__":
    main()
