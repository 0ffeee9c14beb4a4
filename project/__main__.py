"""`python -m project {fit,validate,test,predict} --model NAME [LightningCLI args]`."""

from project.cli import main
from project.errors import reported

if __name__ == "__main__":
    with reported():
        main()
