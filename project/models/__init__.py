"""LightningModules: runkit's `TaskModule` (runkit/model.py) holds everything the families and tasks share.

Each family's file only says how its batch is unpacked. The configs name them by module path, so a
run imports only the family it trains.
"""
