"""`python -m project.serve CHECKPOINT`: serve a checkpoint on LitServe, `POST /predict` and `GET /health`.

Requests and answers per model: docs/serving.md. The checkpoint is read with weights only (runkit/checkpoints/io.py):
a checkpoint that holds code is refused, as `predict` refuses it.
"""

import argparse
import contextlib
import os
import signal
from pathlib import Path

from runkit import ConfigError
from runkit.checkpoints.io import read_checkpoint
from runkit.extras import require_extra

MAX_PAYLOAD_MB = 10  # a larger body is answered 413 before it is read whole


def stop_on_sigterm() -> None:
    """Make SIGTERM (what systemd, Docker, Kubernetes and `kill` send) stop the server as Ctrl-C does.

    LitServe's own shutdown runs on KeyboardInterrupt only: the HTTP server drains the requests in flight, then
    the inference workers and the queues' manager are stopped and joined. Python's default for SIGTERM ends
    this process at once and leaves all of them running, the port held (tests/test_serving.py). Processes
    forked from this one inherit the handler: they take SIGTERM's default (the HTTP server sets its own).
    """
    server = os.getpid()

    def stop(signum: int, frame: object) -> None:
        if os.getpid() != server:
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        signal.signal(signum, signal.SIG_IGN)  # a second SIGTERM would cut the shutdown short and leave workers
        raise KeyboardInterrupt

    signal.signal(signal.SIGTERM, stop)


def main(args: list[str] | None = None, *, package: str) -> int:
    parser = argparse.ArgumentParser(
        prog=f"python -m {package}.serve",
        description=__doc__.splitlines()[0],
        epilog="Arguments after the known ones go to the run's config, e.g. --data.root moved/data.",
    )
    parser.add_argument("checkpoint", help="a .ckpt written by training (its run folder holds config.yaml)")
    parser.add_argument("--port", type=int, default=8000)
    parser.add_argument("--host", default="127.0.0.1", help="0.0.0.0 to answer other machines (default: this one)")
    parser.add_argument("--workers", type=int, default=1, help="inference processes, each with its own model copy")
    parser.add_argument("--max_batch_size", type=int, default=16, help="requests predicted together at most")
    parser.add_argument("--batch_timeout", type=float, default=0.005, help="seconds a batch waits to fill")
    parser.add_argument(
        "--onnx",
        nargs="?",
        const="",
        help="run the exported ONNX file's network with onnxruntime (default file: the checkpoint's, .onnx)",
    )
    parser.add_argument("--accelerator", default="auto", choices=("auto", "cpu", "cuda"))
    parser.add_argument("--config", help="the run's config (default: config.yaml of the checkpoint's run)")
    parser.add_argument("--max_payload_mb", type=float, default=MAX_PAYLOAD_MB, help="the largest request body, in MB")
    known, overrides = parser.parse_known_args(args)
    require_extra("litserve", extra="serve")
    import litserve as ls

    from runkit.serving.api import ModelAPI

    checkpoint = Path(known.checkpoint)
    if not checkpoint.is_file():
        raise ConfigError(f"{checkpoint}: no such checkpoint (a run's checkpoints/last.ckpt, for example)")
    read_checkpoint(checkpoint, mmap=True)  # refused here, before a worker starts, if cut short or holding code
    onnx = None
    if known.onnx is not None:
        onnx = Path(known.onnx) if known.onnx else checkpoint.with_suffix(".onnx")
        if not onnx.is_file():
            export = f"python -m {package}.export {checkpoint} --format onnx"
            raise ConfigError(f"{onnx}: no such file; export the checkpoint first: {export}")
        require_extra("onnxruntime", extra="onnx")
    if known.workers < 1 or known.max_batch_size < 1 or known.batch_timeout < 0:
        raise ConfigError("--workers and --max_batch_size must be at least 1, --batch_timeout at least 0")
    api = ModelAPI(checkpoint, onnx, known.config, overrides, known.max_batch_size, known.batch_timeout)
    server = ls.LitServer(
        api,
        accelerator="cpu" if onnx is not None else known.accelerator,
        devices=1,
        workers_per_device=known.workers,
        max_payload_size=int(known.max_payload_mb * 2**20),  # bytes: LitServe compares the body's size with it
        timeout=60,
    )
    print(f"serving {checkpoint} at http://{known.host}:{known.port}/predict (health: /health)", flush=True)
    stop_on_sigterm()
    with contextlib.suppress(KeyboardInterrupt):  # Ctrl-C or SIGTERM, after LitServe stopped its workers
        server.run(host=known.host, port=known.port, generate_client_file=False, log_level="warning")
    print("server stopped", flush=True)
    return 0
