"""`python -m project {fit,validate,test,predict} --model NAME [LightningCLI args]`."""

from runkit import reported

from project.cli import main

if __name__ == "__main__":
    with reported():
        main()
