"""`python -m PACKAGE...` for a project's tests, forked from a process that has done the project's imports once.

Every real process pays `import lightning.pytorch` (seconds: docs/design.md, "The test suite") before its first
line of work, and the suite waits on many of them. A server per test worker imports once, then forks one child
per command. The child is the command as `python -m` runs it: its own arguments, folder, environment,
stdout, stderr, exit status and atexit handlers, what the imports printed included; only their time is saved.

Used where a test runs a command to its end and reads what it printed (a project's `tests.conftest.python`).
Tests that signal a process start a real one, as does everything a command starts itself (DDP's ranks, a sweep's
trials): those are the processes whose start the tests are about.
"""

import atexit
import gc
import json
import os
import random
import runpy
import select
import signal
import subprocess
import sys
import tempfile
import threading
import traceback
from collections.abc import Sequence
from pathlib import Path

# Read once by the imports (torch sizes its thread pool as it loads): a command that sets them otherwise than the
# server was started with runs as a real process.
READ_AT_IMPORT = ("OMP_NUM_THREADS", "MKL_NUM_THREADS", "CUDA_VISIBLE_DEVICES", "PYTHONWARNINGS", "PYTHONHASHSEED")


class Server:
    """The client side: one preloaded server per test process, started on first use.

    Args:
        root: the repository: what `PYTHONPATH` holds for a command it forks (the server imports from there).
        preload: the modules the server imports once: what every command imports before it reads its arguments
            (the project's `cli`), and the libraries its runs load.
        forkable: the packages whose `python -m` commands are forked; anything else runs as a real process.
    """

    def __init__(self, root: Path, preload: Sequence[str], forkable: Sequence[str]) -> None:
        self.root, self.preload, self.forkable = root, tuple(preload), tuple(forkable)
        self._process: subprocess.Popen | None = None
        self._unread = b""

    def serves(self, args: tuple[str, ...], env: dict[str, str]) -> bool:
        """Whether `python ARGS` with `env` can be forked: `-m` of this repository's code, on its path, with the
        settings the imports read as this process has them (the server's)."""
        return (
            len(args) >= 2
            and args[0] == "-m"
            and args[1].split(".")[0] in self.forkable
            and env.get("PYTHONPATH") == str(self.root)
            and all(env.get(name) == os.environ.get(name) for name in READ_AT_IMPORT)
            and os.name == "posix"
        )

    def python(
        self, *args: str, cwd: Path, env: dict[str, str] | None = None, timeout: float = 300
    ) -> subprocess.CompletedProcess:
        """`python ARGS` in a subprocess, as a user types it, with the project on `PYTHONPATH` (`env` adds to this
        process's environment): forked from the server where it `serves` the command, else started from scratch."""
        env = {**os.environ, "PYTHONPATH": str(self.root), **(env or {})}
        # A W&B run made in this test process (a logger built in-process) leaves the address of its service here; a
        # run started now would log to that service, which may be gone, and its offline folder would stay empty.
        env.pop("WANDB_SERVICE", None)
        if self.serves(args, env):
            return self.run(args, cwd=cwd, env=env, timeout=timeout)
        command = [sys.executable, *args]
        return subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False, env=env)

    def stdout_of(self, *args: str, cwd: Path) -> str:
        """`python -m ARGS` (as `python`) run to its end: its stdout, or the failure with the end of its stderr."""
        result = self.python("-m", *args, cwd=cwd)
        assert result.returncode == 0, result.stderr[-3000:]
        return result.stdout

    def run(self, args: tuple[str, ...], cwd: Path, env: dict[str, str], timeout: float) -> subprocess.CompletedProcess:
        """`python ARGS` in `cwd` with `env`, as `subprocess.run(..., capture_output=True, text=True)` returns it."""
        server = self._started()
        with tempfile.TemporaryDirectory() as folder:
            out, err = Path(folder) / "stdout", Path(folder) / "stderr"
            request = {"args": list(args[1:]), "cwd": str(cwd), "env": env, "stdout": str(out), "stderr": str(err)}
            server.stdin.write(json.dumps(request).encode() + b"\n")
            server.stdin.flush()
            pid = self._reply()["pid"]
            ready = self._reply(timeout or None)
            if ready is None:  # as subprocess.run: kill it, then raise
                os.kill(pid, signal.SIGKILL)
            code = (ready or self._reply())["code"]
            result = subprocess.CompletedProcess([sys.executable, *args], code, out.read_text(), err.read_text())
        if ready is None:
            raise subprocess.TimeoutExpired(result.args, timeout, result.stdout, result.stderr)
        return result

    def _reply(self, timeout: float | None = None) -> dict | None:
        """The server's next line, read from the pipe itself (a buffered reader would hide a line from select);
        None if none came within `timeout` seconds."""
        fd = self._process.stdout.fileno()
        while b"\n" not in self._unread:
            if timeout is not None and not select.select([fd], [], [], timeout)[0]:
                return None
            chunk = os.read(fd, 65536)
            if not chunk:
                raise RuntimeError("the preloaded server exited; its errors are in the test's output")
            self._unread += chunk
        line, self._unread = self._unread.split(b"\n", 1)
        return json.loads(line)

    def _started(self) -> subprocess.Popen:
        if self._process is None or self._process.poll() is not None:
            command = [sys.executable, "-m", "runkit.testing.preloaded", *self.preload]
            base = {**os.environ, "PYTHONPATH": str(self.root)}  # the worker's, not one test's additions
            pipes = {"stdin": subprocess.PIPE, "stdout": subprocess.PIPE, "bufsize": 0}
            self._process, self._unread = subprocess.Popen(command, cwd=self.root, env=base, **pipes), b""
            atexit.register(self._process.kill)
        return self._process


def serve(preload: Sequence[str]) -> None:
    """The server: imports, then for each request on stdin forks a child, replies its pid, then its exit code."""
    replies = os.fdopen(os.dup(1), "w", buffering=1)
    _point(1, Path(os.devnull))  # nothing the server itself prints may reach the replies
    with tempfile.TemporaryDirectory() as folder:
        printed = [Path(folder) / "stdout", Path(folder) / "stderr"]
        with _redirected(*printed):
            for name in preload:
                __import__(name)
        preamble = [path.read_text() for path in printed]
    gc.freeze()  # the imports' objects stay shared with every child instead of copied on first touch
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            replies.close()
            _child(request, preamble)
        replies.write(json.dumps({"pid": pid}) + "\n")
        _, status = os.waitpid(pid, 0)
        replies.write(json.dumps({"code": os.waitstatus_to_exitcode(status)}) + "\n")


class _redirected:
    """fds 1 and 2 into files while the block runs (what the imports print, which every child prints again)."""

    def __init__(self, out: Path, err: Path) -> None:
        self.paths = out, err

    def __enter__(self) -> None:
        self.saved = os.dup(1), os.dup(2)
        _point(1, self.paths[0]), _point(2, self.paths[1])

    def __exit__(self, *exc: object) -> None:
        sys.stdout.flush(), sys.stderr.flush()
        for fd, saved in enumerate(self.saved, start=1):
            os.dup2(saved, fd)
            os.close(saved)


def _point(fd: int, path: Path) -> None:
    opened = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(opened, fd)
    os.close(opened)


def _child(request: dict, preamble: list[str]) -> None:
    """Becomes `python -m MODULE ARGS` in the request's folder and environment; never returns."""
    code = 1
    try:
        os.chdir(request["cwd"])
        os.environ.clear()
        os.environ.update(request["env"])
        _point(1, Path(request["stdout"])), _point(2, Path(request["stderr"]))
        null = os.open(os.devnull, os.O_RDONLY)
        os.dup2(null, 0)
        os.close(null)
        sys.stdout.write(preamble[0]), sys.stderr.write(preamble[1])
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.SIG_DFL)
        random.seed()  # a new process's unseeded generators differ from run to run; the server's would not
        if "numpy" in sys.modules:
            sys.modules["numpy"].random.seed()
        module, *args = request["args"]
        sys.argv = [module, *args]
        sys.path[0] = os.getcwd()
        try:
            runpy.run_module(module, run_name="__main__", alter_sys=True)
            code = 0
        except SystemExit as stop:
            code = _exit_code(stop.code)
        except KeyboardInterrupt:
            traceback.print_exc()
            code = -signal.SIGINT
        except BaseException:
            traceback.print_exc()
        threading._shutdown()  # as the interpreter's own exit: wait for threads, then the atexit handlers
        atexit._run_exitfuncs()
    finally:
        sys.stdout.flush(), sys.stderr.flush()
        if code == -signal.SIGINT:  # Python's exit on an uncaught Ctrl-C
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        os._exit(code)


def _exit_code(code: object) -> int:
    """The exit status of `sys.exit(code)`, as the interpreter maps it."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    print(code, file=sys.stderr)
    return 1


if __name__ == "__main__":  # python -m runkit.testing.preloaded MODULE...: the server, started by Server
    serve(sys.argv[1:])
