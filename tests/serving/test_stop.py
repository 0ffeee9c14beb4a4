"""`python -m project.serve` stops on one SIGTERM: within seconds, exit 0, no process of it left, the port free."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
from runkit.serving.launch import free_port

from tests.conftest import FAMILIES, ROOT, SMALL
from tests.serving.server import trained


def group(pgid: int) -> set[int]:
    """The processes whose process group is `pgid`: a server started in a session of its own and all it started."""
    found = set()
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # gone while read
            continue
        if int(fields[2]) == pgid and fields[0] != "Z":
            found.add(int(stat.parent.name))
    return found


def start(checkpoint: Path, port: int) -> subprocess.Popen:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    command = [sys.executable, "-m", "project.serve", str(checkpoint), f"--port={port}"]
    log = (checkpoint.parent / f"serve-{port}.log").open("w")
    return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=env, start_new_session=True)


def healthy(port: int, process: subprocess.Popen, wait: float = 180) -> None:
    deadline = time.monotonic() + wait
    while time.monotonic() < deadline and process.poll() is None:
        try:
            if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).text == "ok":
                return
        except httpx.TransportError:
            time.sleep(0.3)
    raise AssertionError(f"the server on port {port} did not come up (exit {process.poll()})")


def test_one_sigterm_stops_the_server_and_every_process_it_started(tmp_path):
    """Two servers at once: one sent SIGTERM as `kill PID` and Docker send it, the other as systemd does (to every
    process of the group)."""
    _, checkpoint = trained(FAMILIES[0], *SMALL[FAMILIES[0]])
    servers = {sent_to: (free_port(), None) for sent_to in ("the server", "its group")}
    servers = {sent_to: (port, start(checkpoint, port)) for sent_to, (port, _) in servers.items()}
    try:
        for port, server in servers.values():
            healthy(port, server)
            assert len(group(server.pid)) >= 3  # the server, its HTTP process, an inference worker, the queues'
        for sent_to, (port, server) in servers.items():
            members = group(server.pid)
            os.kill(server.pid if sent_to == "the server" else -server.pid, signal.SIGTERM)
            sent = time.monotonic()
            assert server.wait(timeout=10) == 0, sent_to
            while group(server.pid) and time.monotonic() - sent < 10:
                time.sleep(0.1)
            assert group(server.pid) == set(), f"sent to {sent_to}, left behind: {group(server.pid)} of {members}"
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", port))  # the port is free again
            assert "server stopped" in (checkpoint.parent / f"serve-{port}.log").read_text()
    finally:
        for _, server in servers.values():
            for pid in group(server.pid):
                os.kill(pid, signal.SIGKILL)
