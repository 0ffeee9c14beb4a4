"""`python -m toyproject.repeat`: runkit's command on the toy project."""

from runkit import reported

from toyproject.cli import commands

main = commands.repeat

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
