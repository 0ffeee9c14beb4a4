"""`python -m project.sweep --model NAME --sweep configs/sweeps/NAME.yaml [options] [fit args]`: an Optuna study.

The entry point only; the command is project/sweeps/sweep_command.py.
"""

from runkit import reported

from project.sweeps.sweep_command import main

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
