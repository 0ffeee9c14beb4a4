"""`python -m project.serve` under load on localhost: throughput and latency percentiles of the CNN and the text LSTM,
served by PyTorch and by onnxruntime, each request alone (`--max_batch_size 1`) and batched by LitServe.

    .venv/bin/python -m benchmarks.serve_load                      # 2,000 requests from 16 clients per row
    .venv/bin/python -m benchmarks.serve_load --requests 500 --clients 8 --models cnn
    .venv/bin/python -m benchmarks.serve_load --quick              # a smoke run: 40 requests, one row

Each model is its default config (network and sizes) trained for a few steps on a little data: serving costs depend
on the network's size, not on its weights. A request holds one input (a 32-px PNG, or one text of the generated
set). The clients run on the same machine as the server, and share its CPUs: on a 2-core machine they take part of
what the server would have.
"""

import argparse
import asyncio
import base64
import io
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

MODELS = {  # the default network on a little data, and a few steps
    "cnn": ["--data.num_train=256", "--data.num_val=64", "--data.num_test=64"],  # part: cnn
    "lstm": ["--data.synthetic_samples=400"],  # part: lstm
}


def trained(model: str) -> tuple[Path, list[dict[str, Any]]]:
    """A checkpoint of `model` with its ONNX file beside it, and requests of one test input each."""
    from PIL import Image
    from runkit.tools.onnx_export import export_onnx

    from project.cli import build

    quiet = ["--trainer.enable_progress_bar=false", "--trainer.enable_model_summary=false", "--test_after_fit=false"]
    cli = build(model, *quiet, *MODELS[model], "--trainer.max_steps=5", "--trainer.min_steps=null")
    cli.trainer.fit(cli.model, cli.datamodule)
    checkpoint = Path(cli.trainer.log_dir) / "checkpoints" / "model.ckpt"
    cli.trainer.save_checkpoint(checkpoint)
    export_onnx(checkpoint)
    cli.datamodule.setup("test")
    if model == "cnn":
        requests = []
        for image, _ in cli.datamodule.test_set:
            buffer = io.BytesIO()
            Image.fromarray(image.permute(1, 2, 0).numpy()).save(buffer, format="PNG")
            requests.append({"image": base64.b64encode(buffer.getvalue()).decode()})
    else:
        requests = [{"text": row.text} for row in cli.datamodule.test_set.rows]
    return checkpoint, requests


async def load(url: str, requests: list[dict[str, Any]], total: int, clients: int) -> tuple[float, list[float]]:
    """`total` requests, `clients` at a time: the wall time and each request's latency in seconds."""
    import httpx

    latencies: list[float] = []
    queue = iter(range(total))

    async def client(session: httpx.AsyncClient) -> None:
        for i in queue:
            start = time.perf_counter()
            answer = await session.post(f"{url}/predict", json=requests[i % len(requests)], timeout=120)
            latencies.append(time.perf_counter() - start)
            assert answer.status_code == 200, answer.text

    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(limits=limits) as session:
        start = time.perf_counter()
        await asyncio.gather(*(client(session) for _ in range(clients)))
        return time.perf_counter() - start, latencies


def percentile(values: list[float], q: float) -> float:
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=2000, help="per row")
    parser.add_argument("--clients", type=int, default=16, help="concurrent clients")
    parser.add_argument("--models", nargs="+", default=list(MODELS), choices=list(MODELS))
    parser.add_argument("--max_batch_size", type=int, default=16, help="the batched rows' LitServe batch")
    parser.add_argument("--quick", action="store_true", help="40 requests, the first model, PyTorch, batched")
    args = parser.parse_args()
    if args.quick:
        args.requests, args.clients, args.models = 40, 4, args.models[:1]
    from runkit.serving.launch import served

    backends = [("PyTorch", [])] if args.quick else [("PyTorch", []), ("onnxruntime", ["--onnx"])]
    batching = [("alone", ["--max_batch_size=1"]), (f"batched ≤{args.max_batch_size}", [
        f"--max_batch_size={args.max_batch_size}", "--batch_timeout=0.005"])]  # fmt: skip
    batching = batching[1:] if args.quick else batching
    lines = [
        "| model | network run by | requests | per second | p50 ms | p95 ms | p99 ms |",
        "|---|---|---|---|---|---|---|",
    ]
    with tempfile.TemporaryDirectory() as folder:
        os.chdir(folder)
        for model in args.models:
            checkpoint, requests = trained(model)
            for backend, flags in backends:
                for how, batch_flags in batching:
                    with served(checkpoint, *flags, *batch_flags, "--accelerator=cpu") as url:
                        asyncio.run(load(url, requests, min(20, args.requests), args.clients))  # warm-up
                        wall, latencies = asyncio.run(load(url, requests, args.requests, args.clients))
                    ms = [1000 * percentile(latencies, q) for q in (50, 95, 99)]
                    lines.append(
                        f"| {model} | {backend} | {how} | {args.requests / wall:.0f} | "
                        + " | ".join(f"{v:.1f}" for v in ms)
                        + " |"
                    )
                    print(lines[-1], file=sys.stderr, flush=True)
    print(f"{args.requests} requests of one input each, {args.clients} clients at a time, on localhost")
    print("\n".join(lines))


if __name__ == "__main__":
    main()
