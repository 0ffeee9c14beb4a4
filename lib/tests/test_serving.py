"""`python -m PACKAGE.serve` on the toy: the server answers what `predict` writes for the same points, requests
batched together; one SIGTERM stops it within seconds, exit 0, no process of it left, the port free."""

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
from runkit.serving.launch import free_port
from runkit.testing.serving import answering, as_rows, predictions_tsv, written

from conftest import ENV, TINY, TOY, trained
from toyproject.cli import main


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
    command = [sys.executable, "-m", "toyproject.serve", str(checkpoint), f"--port={port}"]
    log = (checkpoint.parent / f"serve-{port}.log").open("w")
    return subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT, env=ENV, start_new_session=True)


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
    _, checkpoint = trained()
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


@pytest.mark.slow
def test_the_server_answers_what_predict_writes(tmp_path):
    cli, checkpoint = trained("--data.num_val=10")
    done = main(["predict", f"--model={TOY}", f"--ckpt_path={checkpoint}", *TINY, "--data.num_val=10"])
    columns, expected = predictions_tsv(Path(done.trainer.log_dir))
    points = cli.datamodule.predict_set.tensors[0].tolist()
    requests = [{"points": points[i : i + 3]} for i in range(0, len(points), 3)]  # batched together by LitServe
    with answering(checkpoint, over_http=True, package="toyproject") as ask:
        got = as_rows(ask(requests), columns)
    assert len(got) == 10 and got == written(columns, expected)
