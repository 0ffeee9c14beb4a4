"""Graph-classification batching throughput: graphs per second from the DataModule's train loader.

    .venv/bin/python -m benchmarks.graph_collate            # the README's table
    .venv/bin/python -m benchmarks.graph_collate --quick    # a smoke run

Block-diagonal collation (PyG's `Batch.from_data_list`) of the default synthetic graphs; each
setting is timed over a full epoch after one warm-up epoch (so worker start-up is left out).
"""

import argparse
import time

from project.data.graphs import GraphClassificationDataModule


def graphs_per_second(batch_size: int, num_workers: int, num_graphs: int) -> float:
    dm = GraphClassificationDataModule(num_graphs=num_graphs, batch_size=batch_size, num_workers=num_workers)
    dm.setup("fit")
    loader = dm.train_dataloader()
    for _ in loader:  # warm-up: workers start, caches fill
        pass
    start = time.perf_counter()
    seen = sum(batch.num_graphs for batch in loader)
    return seen / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a small set")
    args = parser.parse_args()
    num_graphs = 400 if args.quick else 5000
    print("| batch size | num_workers | graphs / s |")
    print("|---|---|---|")
    for batch_size in (32, 256):
        for workers in (0, 2):
            rate = graphs_per_second(batch_size, workers, num_graphs)
            print(f"| {batch_size} | {workers} | {rate:,.0f} |")


if __name__ == "__main__":
    main()
