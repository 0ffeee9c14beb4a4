"""The check every bad input gets: it fails with runkit's error naming what is wrong (file, line, field), and every
file that was there before (data, checkpoints, logs) comes out as it was."""

import hashlib
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest

from runkit.errors import UserError


@dataclass
class BadInput:
    name: str
    make: Callable[[Path], Callable[[], object]]  # writes the bad input under tmp, returns what should fail
    error: type[BaseException]
    message: str  # a regex the error (or, for the CLI's usage errors, stderr) must match


def written(path: Path, content: str | bytes) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def snapshot(root: Path) -> dict[Path, str]:
    return {p: hashlib.sha1(p.read_bytes()).hexdigest() for p in root.rglob("*") if p.is_file()}


def fails_clearly(case: BadInput, tmp_path: Path, stderr: Callable[[], str]) -> None:
    """`case` raises its error with its message (in the error, or on `stderr()` for the parser's usage errors) and
    changes no file under `tmp_path` that was there before it ran."""
    written(tmp_path / "data" / "keep.csv", "text,label\nkeep me,x\n")
    written(tmp_path / "logs" / "old" / "version_0" / "checkpoints" / "last.ckpt", b"an older run's checkpoint")
    action = case.make(tmp_path)
    before = snapshot(tmp_path)
    with pytest.raises(case.error) as raised:
        action()
    # Ours, not a library's: the command line shows it as one `error:` line (SystemExit: the parser already did).
    assert isinstance(raised.value, (UserError, SystemExit)), type(raised.value)
    shown = str(raised.value) + stderr()
    assert re.search(case.message, shown, flags=re.S), shown[-2000:]
    after = snapshot(tmp_path)
    assert {p: h for p, h in after.items() if p in before} == before, "an existing file was changed or removed"
