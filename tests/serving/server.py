"""A served checkpoint for the tests: a few steps of training, then `python -m project.serve` in a process of its
own on a free localhost port, asked over HTTP."""

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import httpx

from project.cli import build
from tests.conftest import ROOT, TINY


def trained(model: str, *args: str) -> tuple[Any, Path]:
    """A few steps of `model`, saved in its run folder beside the config.yaml that serving and `predict` read."""
    cli = build(model, *TINY, *args, "--trainer.max_steps=3", "--trainer.limit_val_batches=1")
    cli.trainer.fit(cli.model, cli.datamodule)
    path = Path(cli.trainer.log_dir) / "checkpoints" / "model.ckpt"
    cli.trainer.save_checkpoint(path)
    return cli, path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def serving(checkpoint: Path, *args: str) -> Iterator[str]:
    """`python -m project.serve CHECKPOINT ARGS` on a free localhost port, once its health endpoint says ok: its URL.
    Stopped with its whole process group (LitServe's workers) when the block ends."""
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    env.pop("WANDB_SERVICE", None)
    command = [sys.executable, "-m", "project.serve", str(checkpoint), f"--port={port}", *args]
    log = Path(f"serve-{port}.log")
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 180
        while True:
            assert process.poll() is None, f"the server exited {process.returncode}:\n{log.read_text()[-3000:]}"
            assert time.monotonic() < deadline, f"not healthy within 180 s:\n{log.read_text()[-3000:]}"
            try:
                if httpx.get(f"{url}/health", timeout=2).text == "ok":
                    break
            except httpx.TransportError:
                pass
            time.sleep(0.3)
        yield url
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()


def ask_together(url: str, requests: list[Any]) -> list[httpx.Response]:
    """Every request at once, each from a client of its own: LitServe batches those that arrive together."""
    with ThreadPoolExecutor(len(requests)) as pool:
        return list(pool.map(lambda body: httpx.post(f"{url}/predict", json=body, timeout=60), requests))
