"""`python -m project.lr_find --model NAME [fit args]`: an LR range test with Lightning's Tuner.

The entry point only; the command is project/tools/lr_find.py.
"""

from runkit import reported

from project.tools.lr_find import main

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
