"""`python -m project.runs [FOLDER ...] [--csv FILE]`: one row per run under the folders (default logs/).

The entry point only; the command is runkit's (runkit/tools/runs.py).
"""

from runkit import reported

from project.cli import commands

main = commands.runs

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
