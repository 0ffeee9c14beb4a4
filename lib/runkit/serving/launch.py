"""A server in a process of its own, for scripts, notebooks and tests: `python -m PACKAGE.serve` on a free localhost
port, until its health endpoint answers; stopped with its workers when the block ends."""

import importlib.util
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def served(
    checkpoint: str | Path, *args: str, package: str = "project", log: str | Path | None = None, wait: float = 180
) -> Iterator[str]:
    """`python -m PACKAGE.serve CHECKPOINT ARGS` on a free localhost port, once `GET /health` says ok: its URL. Its
    output goes to `log` (default: serve-PORT.log here). The whole process group (LitServe's workers) is stopped
    when the block ends. The server imports PACKAGE from where this process does."""
    import httpx

    port = free_port()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([_home(package), os.environ.get("PYTHONPATH", "")]).rstrip(os.pathsep),
    }
    env.pop("WANDB_SERVICE", None)  # a W&B service of the caller's is no business of the server's
    command = [sys.executable, "-m", f"{package}.serve", str(checkpoint), f"--port={port}", *args]
    log = Path(log or f"serve-{port}.log")
    with log.open("w") as out:
        process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + wait
        while True:
            if process.poll() is not None:
                raise RuntimeError(f"the server exited {process.returncode}:\n{log.read_text()[-3000:]}")
            if time.monotonic() > deadline:
                raise TimeoutError(f"the server was not healthy within {wait:.0f} s:\n{log.read_text()[-3000:]}")
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


def _home(package: str) -> str:
    """The folder `package` is imported from here (a checkout's root, or site-packages)."""
    spec = importlib.util.find_spec(package)
    if spec is None or spec.origin is None:
        raise ModuleNotFoundError(f"no package {package!r} to serve from: is the project installed, or on PYTHONPATH?")
    return str(Path(spec.origin).resolve().parents[1])
