"""`python -m toyproject.doctor`: runkit's command on the toy project."""

from runkit import reported

from toyproject.cli import commands

main = commands.doctor

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
