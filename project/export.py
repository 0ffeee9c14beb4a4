"""`python -m project.export CHECKPOINT [OUT]`: a model's weights as safetensors, to share without pickle.

A Lightning checkpoint is a pickle: loading one from a stranger can run their code (this project
loads its own with `weights_only=True`, see project/checkpoint_io.py). A .safetensors file is a JSON
header and raw tensor bytes; reading it cannot run anything. The model's config travels in the
header's metadata, so the receiver knows what to build.
"""

import argparse
import json
from pathlib import Path

from safetensors.torch import load_file, save_file
from torch import nn

from project.checkpoint_io import read_checkpoint
from project.errors import reported


def export(checkpoint: str | Path, out: str | Path | None = None) -> Path:
    """Write `checkpoint`'s weights to `out` (default: beside it, .safetensors); return the path."""
    checkpoint = Path(checkpoint)
    out = Path(out) if out is not None else checkpoint.with_suffix(".safetensors")
    saved = read_checkpoint(checkpoint)
    # safetensors refuses tensors that share memory, and views of bigger buffers: own copies.
    weights = {name: tensor.detach().clone().contiguous() for name, tensor in saved["state_dict"].items()}
    metadata = {
        "format": "pt",
        "hyper_parameters": json.dumps(saved.get("hyper_parameters", {}), default=str),
        "source": checkpoint.name,
    }
    save_file(weights, str(out), metadata=metadata)
    return out


def load_weights(model: nn.Module, path: str | Path) -> nn.Module:
    """Load exported weights into `model` (built from the same config), strictly: every name must match."""
    model.load_state_dict(load_file(str(path)))
    return model


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("checkpoint", help="a .ckpt written by training")
    parser.add_argument("out", nargs="?", help="the .safetensors to write (default: beside the checkpoint)")
    args = parser.parse_args()
    print(f"wrote {export(args.checkpoint, args.out)}")


if __name__ == "__main__":
    with reported():
        main()
