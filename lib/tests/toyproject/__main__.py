"""`python -m toyproject fit|validate|test|predict --model toy [args]`."""

from runkit import reported

from toyproject.cli import main

if __name__ == "__main__":
    with reported():
        main()
