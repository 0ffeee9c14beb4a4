"""`python -m project.doctor --model NAME [fit args]`: a pre-flight check before a long run.

The entry point only; the command is runkit's (runkit/tools/doctor.py), on this project's families.
"""

from runkit import reported

from project.cli import commands

main = commands.doctor

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
