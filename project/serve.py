"""`python -m project.serve CHECKPOINT [--port 8000] [--workers N] [--max_batch_size B] [--onnx]`: a trained
model behind `POST /predict`, answering what `predict` would write.

The entry point only; the command is project/serving/command.py.
"""

from runkit import reported

from project.serving.command import main

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
