"""`python -m project.sweep --model NAME --sweep configs/sweeps/NAME.yaml [options] [fit args]`: an Optuna study.

The entry point only; the command is runkit's (runkit/sweeps/sweep_command.py), on this project's families.
"""

from runkit import reported

from project.cli import commands

main = commands.sweep

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
