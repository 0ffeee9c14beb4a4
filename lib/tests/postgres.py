"""A PostgreSQL server for one test: started in a temporary data directory under the `postgres` user (the server
refuses to run as root), reached through a Unix socket, stopped and removed afterwards."""

import os
import shutil
import socket
import subprocess
import tempfile
from pathlib import Path

import pytest


def _binary(name: str) -> str:
    found = shutil.which(name) or next(
        (str(p) for p in sorted(Path("/usr/lib/postgresql").glob(f"*/bin/{name}"))), None
    )
    if found is None:
        pytest.fail(f"PostgreSQL's {name} is not installed (apt install postgresql)")
    return found


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def postgres_server():
    """The URL of a fresh database `optuna` on a server of its own."""
    folder = Path(tempfile.mkdtemp(prefix="pg-"))  # not under pytest's tmp_path, which only root may enter
    as_postgres = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
    if as_postgres:
        shutil.chown(folder, "postgres")
    data, port = folder / "data", _free_port()

    def do(*command: str) -> None:
        subprocess.run([*as_postgres, *command], check=True, capture_output=True, timeout=60)

    do(_binary("initdb"), "-D", str(data), "--auth=trust", "-U", "postgres")
    options = f"-p {port} -k {folder} -c listen_addresses='' -c fsync=off"
    do(_binary("pg_ctl"), "-D", str(data), "-o", options, "-l", str(folder / "server.log"), "-w", "start")
    try:
        do(_binary("createdb"), "-h", str(folder), "-p", str(port), "-U", "postgres", "optuna")
        yield f"postgresql+psycopg2://postgres@/optuna?host={folder}&port={port}"
    finally:
        do(_binary("pg_ctl"), "-D", str(data), "-m", "immediate", "stop")
        shutil.rmtree(folder, ignore_errors=True)
