"""Checkpoints that a kill cannot half-write, and loading that refuses anything but plain data.

Lightning writes a checkpoint in place: a kill or a full disk during the write leaves a truncated
`last.ckpt` where the good one was. `AtomicCheckpointIO` writes beside it and renames, so the file is
either the old one or the new one. Loading goes through `read_checkpoint`, which names a truncated or
unsafe file instead of failing deep inside unpickling.
"""

import pickle
import zipfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

from lightning.fabric.plugins.io.torch_io import TorchCheckpointIO

from runkit import CheckpointError, UnsafePickle, load_plain_data, write_atomically


class AtomicCheckpointIO(TorchCheckpointIO):
    """Writes to a hidden file in the same folder, flushes it to disk, then renames it over the target.

    A rename within a folder is atomic (POSIX `rename`, Windows `MoveFileEx`). The temporary name has no
    "last" in it, so `--ckpt_path last` never picks up a half-written file.
    """

    def save_checkpoint(self, checkpoint: dict[str, Any], path: Any, storage_options: Any | None = None) -> None:
        save = super().save_checkpoint
        write_atomically(Path(path), lambda partial: save(checkpoint, partial, storage_options))

    def load_checkpoint(
        self, path: Any, map_location: Callable | None = lambda storage, loc: storage, weights_only: bool | None = None
    ) -> dict[str, Any]:
        if weights_only is False:  # Lightning passes None unless a caller asks; never honour a request to unpickle code
            raise CheckpointError(
                f"refused to load {path} with weights_only=False: this project loads plain data only "
                "(weights_only=True), and its own checkpoints never need more"
            )
        return read_checkpoint(path, map_location=map_location)


def check_complete(path: str | Path) -> Path:
    """`path` if it is a whole checkpoint file, else a CheckpointError that says what is wrong with it."""
    path = Path(path)
    if not path.is_file():
        raise CheckpointError(f"checkpoint {path} does not exist")
    # torch.save writes a zip archive whose index sits at the very end: a cut-short file has none.
    if not zipfile.is_zipfile(path):
        raise CheckpointError(
            f"checkpoint {path} is incomplete or not a checkpoint ({path.stat().st_size} bytes, no zip index at its "
            "end): it was probably cut short by a kill or a full disk. Resume from an earlier one"
            + _others_in(path.parent, path)
        )
    return path


def read_checkpoint(path: str | Path, map_location: Any = "cpu", mmap: bool = False) -> dict[str, Any]:
    """`torch.load(path, weights_only=True)` of a whole file: tensors, numbers, strings and containers, never code."""
    path = check_complete(path)
    try:
        return load_plain_data(path, map_location=map_location, mmap=mmap)
    except UnsafePickle as unsafe:
        raise CheckpointError(
            f"refused to load {path}: it holds Python objects other than plain data ({unsafe.culprit}), and "
            "unpickling them could run code. Load only checkpoints you trust; a project's own checkpoints never need "
            "this. To share weights, export them with `python -m project.export` (safetensors: no pickle at all)."
        ) from None
    except (RuntimeError, EOFError, zipfile.BadZipFile, pickle.UnpicklingError) as err:
        raise CheckpointError(f"checkpoint {path} cannot be read ({err}); it may be damaged") from None


def find_last(run_root: Path, versions: str = "*") -> Path | None:
    """The newest `*last*.ckpt` (complete or not) under `run_root/<versions>/checkpoints/`, else None."""
    found = sorted(run_root.glob(f"{versions}/checkpoints/*last*.ckpt"), key=lambda p: p.stat().st_mtime, reverse=True)
    return found[0] if found else None


def newest_complete(folder: Path) -> Path | None:
    """The most recently written checkpoint in `folder` that is whole."""
    candidates = sorted(folder.glob("*.ckpt"), key=lambda p: p.stat().st_mtime, reverse=True)
    return next((p for p in candidates if zipfile.is_zipfile(p)), None)


def _others_in(folder: Path, bad: Path) -> str:
    others = [p.name for p in sorted(folder.glob("*.ckpt")) if p != bad and zipfile.is_zipfile(p)]
    return f", e.g. --ckpt_path {folder / others[-1]} (complete ones there: {', '.join(others)})." if others else "."
