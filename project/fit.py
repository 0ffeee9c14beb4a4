"""`python -m project.fit --model NAME [LightningCLI args]`: the short form of `python -m project fit`."""

from runkit import reported

from project.cli import main

if __name__ == "__main__":
    with reported():
        main(subcommand="fit")
