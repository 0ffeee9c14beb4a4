"""`python -m toyproject.fit --model toy [LightningCLI args]`."""

from runkit import reported

from toyproject.cli import main

if __name__ == "__main__":
    with reported():
        main(subcommand="fit")
