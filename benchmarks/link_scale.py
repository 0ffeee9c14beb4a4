"""Link prediction on growing random graphs: time and peak memory of the data's set-up, a full-batch training
step over every training link, and a sampled step (1,024 links, 10 + 10 neighbours around their endpoints).

    .venv/bin/python -m benchmarks.link_scale            # 1e5, 1e6, 1e7 links (10 per node)
    .venv/bin/python -m benchmarks.link_scale --quick    # a smoke run

Each (size, loader) runs in its own process, so its peak resident memory is its own. The data is the
template's own pipeline (`LinkPredictionDataModule`: split, edge sets, fixed evaluation negatives, each
epoch's training negatives, the collate); the model is a 2-layer GCN of 16 channels with the dot decoder.
Printed: the markdown table, then the fitted exponent b of time ~ links^b (1 = linear).
"""

import argparse
import json
import math
import resource
import subprocess
import sys
import time

SAMPLED_BATCH = 1024
SAMPLED_STEPS = 5


def one_run(links: int, loader: str) -> dict[str, float]:
    import torch
    from runkit.tasks import LinkPrediction

    from project.data.graphs import LinkPredictionDataModule
    from project.data.graphs.link_sources import LinkGraph
    from project.nets.gcn_link import GCNLinkPredictor

    nodes = max(links // 10, 2)

    class RandomLinks(LinkPredictionDataModule):
        def read_graph(self) -> LinkGraph:
            gen = torch.Generator().manual_seed(0)
            edge_index = torch.randint(0, nodes, (2, links), generator=gen)
            edge_index = edge_index[:, edge_index[0] != edge_index[1]]
            x = torch.randn(nodes, 16, generator=gen)
            return LinkGraph(x=x, links=edge_index, names=[str(i) for i in range(nodes)])

    start = time.perf_counter()
    dm = RandomLinks(loader=loader, batch_size=min(SAMPLED_BATCH, links // 2), eval_negatives=100)
    dm.setup("fit")
    setup = time.perf_counter() - start
    net = GCNLinkPredictor(16, nodes, hidden_channels=16, num_layers=2)
    task = LinkPrediction()
    task.bind(1)
    optimizer = torch.optim.Adam(net.parameters(), lr=0.01)
    times, batches = [], iter(())
    for _ in range(3 if loader == "full" else SAMPLED_STEPS + 1):
        begin = time.perf_counter()
        batch = next(batches, None)
        if batch is None:  # the epoch's end (full-batch: every step)
            batches = iter(dm.train_dataloader())
            batch = next(batches)
        optimizer.zero_grad()
        task.loss(net(batch.x, batch.edge_index, batch.pairs, batch.n_id), batch.y).backward()
        optimizer.step()
        times.append(time.perf_counter() - begin)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss  # KiB on Linux
    step = min(times[1:]) if loader == "full" else sum(times[1:]) / SAMPLED_STEPS
    return {"setup": setup, "step": step, "peak_gb": peak / 2**20, "train_links": dm.links["train"].shape[1]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="tiny sizes, for the test suite")
    parser.add_argument("--one", nargs=2, metavar=("LINKS", "LOADER"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(one_run(int(args.one[0]), args.one[1])))
        return
    sizes = [10**3, 10**4] if args.quick else [10**5, 10**6, 10**7]
    print("| links | nodes | loader | set-up (s) | s / step | training links per s | peak RSS (GB) |")
    print("|---|---|---|---|---|---|---|")
    fits = {}
    for loader in ("full", "neighbor"):
        points = []
        for links in sizes:
            out = subprocess.run(
                [sys.executable, __file__, "--one", str(links), loader], capture_output=True, text=True, check=True
            )
            r = json.loads(out.stdout.strip().splitlines()[-1])
            per_step = r["train_links"] if loader == "full" else min(SAMPLED_BATCH, links // 2)
            points.append((links, r["step"]))
            row = [f"{links:,}", f"{links // 10:,}", loader, f"{r['setup']:.2f}", f"{r['step']:.3f}"]
            print("| " + " | ".join([*row, f"{per_step / r['step']:,.0f}", f"{r['peak_gb']:.2f}"]) + " |")
        (e0, t0), (e1, t1) = points[0], points[-1]
        fits[loader] = math.log(t1 / t0) / math.log(e1 / e0)
    print()
    for loader, b in fits.items():
        print(f"{loader}: a step's time grows as links^{b:.2f} from {sizes[0]:,} to {sizes[-1]:,} links")


if __name__ == "__main__":
    main()
