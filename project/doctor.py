"""`python -m project.doctor --model NAME [fit args]`: a pre-flight check before a long run.

The entry point only; the command is project/tools/doctor.py.
"""

from runkit import reported

from project.tools.doctor import main

if __name__ == "__main__":
    with reported():
        raise SystemExit(main())
