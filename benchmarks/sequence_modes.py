"""Packed vs padded LSTM, with and without length bucketing: time per forward+backward and padding.

    .venv/bin/python -m benchmarks.sequence_modes            # the README's table
    .venv/bin/python -m benchmarks.sequence_modes --quick    # a smoke run
    python -m benchmarks.sequence_modes --device cuda        # cuDNN; --bf16 for bf16 autocast

Modes run interleaved (A B C A B C ...) and report medians, so a noisy machine shifts all alike.
"""

import argparse
import contextlib
import statistics
import time

import torch
from runkit import BucketBatchSampler, PadCollate, padding_fraction

from project.nets.lstm import LSTMEncoder


def length_distributions(n: int, gen: torch.Generator) -> dict[str, list[int]]:
    heavy = (torch.distributions.Pareto(torch.tensor(5.0), torch.tensor(1.5)).sample((n,))).clamp(max=200)
    return {
        "uniform 5-200": torch.randint(5, 201, (n,), generator=gen).tolist(),
        "heavy-tailed": heavy.round().int().tolist(),
        "near-constant 95-105": torch.randint(95, 106, (n,), generator=gen).tolist(),
    }


def batches_of(lengths: list[int], batch_size: int, bucketed: bool) -> list[list[int]]:
    order = torch.randperm(len(lengths), generator=torch.Generator().manual_seed(0))
    if not bucketed:
        return [order[i : i + batch_size].tolist() for i in range(0, len(order), batch_size)]
    sampler = BucketBatchSampler(order.tolist(), batch_size, drop_last=False, lengths=lengths)
    return list(sampler)


def step_seconds(net: LSTMEncoder, batch: tuple[torch.Tensor, ...], bf16: bool) -> tuple[float, float]:
    """One forward and backward; timed to the end of the device's work (`.item()` waits for it)."""
    device = next(net.parameters()).device
    tokens, lengths = (t.to(device, non_blocking=True) for t in batch[:2])
    autocast = torch.autocast(device.type, dtype=torch.bfloat16) if bf16 else contextlib.nullcontext()
    start = time.perf_counter()
    with autocast:
        loss = net(tokens, lengths).float().square().mean()
    loss.backward()
    value = loss.item()
    return time.perf_counter() - start, value


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the test suite")
    parser.add_argument("--device", default="cpu", help="cpu, or cuda for cuDNN's LSTM")
    parser.add_argument("--bf16", action="store_true", help="forward under bf16 autocast")
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--hidden", type=int, default=128)
    args = parser.parse_args()
    n, batch_size, hidden, reps = (64, 16, 16, 1) if args.quick else (1024, args.batch_size, args.hidden, 3)
    gen = torch.Generator().manual_seed(0)
    torch.manual_seed(0)  # the heavy-tailed lengths draw from the global generator
    collate = PadCollate()
    device = torch.device(args.device)
    where = torch.cuda.get_device_name(device) if device.type == "cuda" else f"{torch.get_num_threads()} threads"
    precision = "bf16 autocast" if args.bf16 else "float32"
    print(f"torch {torch.__version__}, {where}, {precision}, batch {batch_size}, hidden {hidden}\n")
    print("| lengths | direction | mode | bucketing | padding | seq/s | vs packed, no bucketing |")
    print("|---|---|---|---|---|---|---|")
    for name, lengths in length_distributions(n, gen).items():
        data = [(torch.randint(2, 1000, (length,), generator=gen), 0) for length in lengths]
        for bidirectional in (False, True):
            modes = ["packed", "padded"]  # padded bidirectional: each direction apart (nets/lstm.py, padded_lstm)
            settings = [(m, b) for m in modes for b in (False, True)]
            nets = {m: LSTMEncoder(1000, 64, hidden, bidirectional=bidirectional, sequence_mode=m) for m in modes}
            for m in modes:
                nets[m].load_state_dict(nets[modes[0]].state_dict())  # same weights: same losses
                nets[m].to(device)
            times: dict[tuple[str, bool], list[float]] = {s: [] for s in settings}
            losses: dict[tuple[str, bool], float] = {}
            for _ in range(reps):
                for mode, bucketed in settings:
                    total, loss_sum = 0.0, 0.0
                    for batch in batches_of(lengths, batch_size, bucketed):
                        seconds, loss = step_seconds(nets[mode], collate([data[i] for i in batch]), args.bf16)
                        total, loss_sum = total + seconds, loss_sum + loss
                    times[(mode, bucketed)].append(total)
                    losses[(mode, bucketed)] = loss_sum
            base = statistics.median(times[("packed", False)])
            direction = "bi" if bidirectional else "uni"
            for mode, bucketed in settings:
                seconds = statistics.median(times[(mode, bucketed)])
                pad = padding_fraction(batches_of(lengths, batch_size, bucketed), lengths)
                print(
                    f"| {name} | {direction} | {mode} | {'yes' if bucketed else 'no'} | {pad:.0%} "
                    f"| {n / seconds:,.0f} | {base / seconds:.2f}× |"
                )
            if not bidirectional:
                drift = abs(losses[("packed", False)] - losses[("padded", False)])
                tolerance = 2e-2 if args.bf16 else 1e-3  # bf16 keeps 8 bits of mantissa
                assert drift < tolerance * abs(losses[("packed", False)]), f"packed and padded disagree by {drift}"


if __name__ == "__main__":
    main()
