"""The toy project's command line: runkit's, on its one family."""

from runkit import Commands

from toyproject.registry import REGISTRY

commands = Commands(REGISTRY)
main, build, compose, parse = commands.main, commands.build, commands.compose, commands.parse
