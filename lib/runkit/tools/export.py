"""`python -m project.export CHECKPOINT [OUT] [--format safetensors|onnx]`: a trained model out of the template.

safetensors (the default): the weights alone, to load into the same model built from its config. A
Lightning checkpoint is a pickle: loading one from a stranger can run their code (this project loads its
own with `weights_only=True`, see runkit/checkpoints/io.py). A .safetensors file is a JSON header and raw
tensor bytes; reading it cannot run anything. The model's config travels in the header's metadata.

onnx: the network and its predictions as a graph that runs without PyTorch or this project (onnxruntime,
other languages, other hardware), checked against the checkpoint on validation data before it is kept as
good (runkit/tools/onnx_export.py; docs/export.md).
"""

import argparse
import json
from pathlib import Path

from safetensors.torch import load_file, save_file
from torch import nn

from runkit.checkpoints.io import read_checkpoint


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


def main(args: list[str] | None = None, *, package: str) -> None:
    from runkit.tools.onnx_export import ATOL, RTOL

    parser = argparse.ArgumentParser(
        prog=f"python -m {package}.export",
        description=__doc__.splitlines()[0],
        epilog="Arguments after the known ones go to the run's config (onnx), e.g. --data.root moved/data.",
    )
    parser.add_argument("checkpoint", help="a .ckpt written by training")
    parser.add_argument("out", nargs="?", help="the file to write (default: beside the checkpoint)")
    parser.add_argument("--format", choices=("safetensors", "onnx"), default="safetensors")
    parser.add_argument("--config", help="onnx: the run's config (default: config.yaml of the checkpoint's run)")
    parser.add_argument("--atol", type=float, default=ATOL, help="onnx: absolute tolerance of the check")
    parser.add_argument("--rtol", type=float, default=RTOL, help="onnx: tolerance relative to each value")
    known, overrides = parser.parse_known_args(args)
    if known.format == "safetensors":
        if overrides:
            parser.error(f"unrecognized arguments: {' '.join(overrides)}")
        print(f"wrote {export(known.checkpoint, known.out)}")
        return
    from runkit.tools.onnx_export import export_onnx

    out, verdict = export_onnx(known.checkpoint, known.out, known.config, overrides, known.atol, known.rtol)
    print(verdict)
    print(f"wrote {out}")
