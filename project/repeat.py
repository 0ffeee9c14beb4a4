"""`python -m project.repeat --model NAME --seeds 5 | --folds 5 [fit args]`: one config, several runs, mean ± std.

The entry point only; the command is runkit's (runkit/sweeps/repeat_command.py), on this project's families.
"""

from runkit import reported

from project.cli import commands

main = commands.repeat

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
