"""`python -m project.runs [FOLDER ...] [--csv FILE]`: one row per run under the folders (default logs/).

The entry point only; the command is project/tools/runs.py.
"""

from runkit import reported

from project.tools.runs import main

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
