"""`python -m toyproject.export`: runkit's command on the toy project."""

from runkit import reported

from toyproject.cli import commands

main = commands.export

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
