"""`python -m project.lr_find --model NAME [fit args]`: an LR range test with Lightning's Tuner.

The entry point only; the command is runkit's (runkit/tools/lr_find.py), on this project's families.
"""

from runkit import reported

from project.cli import commands

main = commands.lr_find

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
