"""Files read and written safely: written so that a kill, a full disk or a second writer never leaves one
half-written (checkpoints, status.json, epochs.json, the image cache); read so that a pickle never runs code."""

import os
import pickle
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any


class UnsafePickle(Exception):
    """A PyTorch file that holds Python objects other than plain data; `culprit` names the first one found."""

    def __init__(self, culprit: str) -> None:
        super().__init__(culprit)
        self.culprit = culprit


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


def load_plain_data(path: Path, map_location: Any = "cpu", mmap: bool = False) -> Any:
    """`torch.load(path, weights_only=True)`: tensors, numbers, strings and containers, never code. Anything else
    raises UnsafePickle with the object's name only: torch's own message goes on to advise weights_only=False,
    the one thing not to do. Checkpoints (checkpoints/io.py) and weights files (nets/resnet.py) both read here."""
    import torch

    try:
        return torch.load(path, map_location=map_location, weights_only=True, mmap=mmap)
    except pickle.UnpicklingError as err:
        found = re.search(r"Unsupported global: GLOBAL (\S+)", str(err))
        if found is None:  # torch's message would still advise weights_only=False
            raise pickle.UnpicklingError("not a file torch.save wrote, or a damaged one") from None
        raise UnsafePickle(found.group(1)) from None
