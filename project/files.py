"""Files that a kill, a full disk or a second writer never leave half-written: checkpoints, status.json,
epochs.json, the image cache."""

import os
from collections.abc import Callable
from pathlib import Path


def write_atomically(path: Path, write: Callable[[Path], None]) -> None:
    """`write(partial)` to a hidden file of this process in `path`'s folder, flushed to disk, then renamed over
    `path`: a reader, a kill or another process writing the same file never sees half of it."""
    partial = path.parent / f".writing-{os.getpid()}.tmp"
    try:
        write(partial)
        with open(partial, "rb") as f:
            os.fsync(f.fileno())
        os.replace(partial, path)
    finally:
        partial.unlink(missing_ok=True)
