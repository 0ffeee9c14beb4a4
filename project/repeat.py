"""`python -m project.repeat --model NAME --seeds 5 | --folds 5 [fit args]`: one config, several runs, mean ± std.

The entry point only; the command is project/sweeps/repeat_command.py.
"""

from runkit import reported

from project.sweeps.repeat_command import main

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
