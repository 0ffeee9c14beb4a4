"""`python -m project.export CHECKPOINT [OUT] [--format safetensors|onnx]`: a trained model out of the template.

The entry point only; the command is runkit's (runkit/tools/export.py).
"""

from runkit import reported

from project.cli import commands

main = commands.export

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
