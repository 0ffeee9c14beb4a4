"""`python -m project.serve CHECKPOINT [--port 8000] [--workers N] [--max_batch_size B] [--onnx]`: a trained
model behind `POST /predict`. The entry point only; the command is runkit's (runkit/serving/command.py).
"""

from runkit import reported

from project.cli import commands

main = commands.serve

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
