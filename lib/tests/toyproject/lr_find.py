"""`python -m toyproject.lr_find`: runkit's command on the toy project."""

from runkit import reported

from toyproject.cli import commands

main = commands.lr_find

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
