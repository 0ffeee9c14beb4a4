"""Full-batch GCN epochs on growing random graphs: time and peak memory, PyG's GCNConv vs our GCNLayer.

    .venv/bin/python -m benchmarks.graph_scale            # 1e5, 1e6, 1e7 edges (10 edges per node)
    .venv/bin/python -m benchmarks.graph_scale --quick    # a smoke run

Each (size, layer) runs in its own process, so its peak resident memory is its own. Printed: the
markdown table, then the fitted exponent b of time ~ edges^b (1 = linear).
"""

import argparse
import json
import math
import resource
import subprocess
import sys
import time


def one_run(edges: int, conv: str) -> dict[str, float]:
    """Build the graph, then time one training epoch (forward, loss, backward, step) after a warm-up."""
    import torch

    from project.nets.gcn import GCN

    nodes = max(edges // 10, 2)
    gen = torch.Generator().manual_seed(0)
    edge_index = torch.randint(0, nodes, (2, edges), generator=gen)
    x = torch.randn(nodes, 16, generator=gen)
    y = torch.randint(0, 4, (nodes,), generator=gen)
    net = GCN(4, 16, hidden_channels=16, num_layers=2, conv=conv, readout=None)
    optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    times = []
    for _ in range(3):
        start = time.perf_counter()
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(net(x, edge_index), y).backward()
        optimizer.step()
        times.append(time.perf_counter() - start)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    return {"seconds": min(times[1:]), "peak_gb": peak / 2**20, "epoch_gb": (peak - before) / 2**20}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the test suite")
    parser.add_argument("--one", nargs=2, metavar=("EDGES", "CONV"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_run(int(args.one[0]), args.one[1])))
        return
    sizes = [10**3, 10**4] if args.quick else [10**5, 10**6, 10**7]
    print("| edges | nodes | layer | s / epoch | peak RSS (GB) | grown during the epoch (GB) |")
    print("|---|---|---|---|---|---|")
    fits = {}
    for conv in ("gcn", "native"):
        points = []
        for edges in sizes:
            out = subprocess.run(
                [sys.executable, __file__, "--one", str(edges), conv], capture_output=True, text=True, check=True
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            points.append((edges, r["seconds"]))
            row = [f"{edges:,}", f"{edges // 10:,}", conv, f"{r['seconds']:.3f}", f"{r['peak_gb']:.2f}"]
            print("| " + " | ".join([*row, f"{r['epoch_gb']:.2f}"]) + " |")
        (e0, t0), (e1, t1) = points[0], points[-1]
        fits[conv] = math.log(t1 / t0) / math.log(e1 / e0)
    print()
    for conv, b in fits.items():
        print(f"{conv}: time grows as edges^{b:.2f} from {sizes[0]:,} to {sizes[-1]:,} edges")


if __name__ == "__main__":
    main()
