"""`python -m project.fit --model NAME [LightningCLI args]`: the short form of `python -m project fit`."""

from project.cli import main
from project.errors import reported

if __name__ == "__main__":
    with reported():
        main(subcommand="fit")
