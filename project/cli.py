"""This project's command line: runkit's, knowing this project's model families (registry.py).

`main` runs a command line; `build("cnn", "--trainer.max_epochs=2")` and `compose(args)` instantiate one without
running it (notebooks, tests, the tools); `parse(args)` checks one and builds nothing.
"""

from runkit import Commands

from project.registry import REGISTRY

commands = Commands(REGISTRY)
main, build, compose, parse = commands.main, commands.build, commands.compose, commands.parse
