"""`python -m project.export CHECKPOINT [OUT] [--format safetensors|onnx]`: a trained model out of the template.

The entry point only; the command is project/tools/export.py.
"""

from runkit import reported

from project.tools.export import main

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
