"""`python -m toyproject.sweep`: runkit's command on the toy project."""

from runkit import reported

from toyproject.cli import commands

main = commands.sweep

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
