"""LightningModules: `TaskModule` (classifier.py) holds everything the families share.

Each family's file only says how its batch is unpacked. The configs name them by module path, so a
run imports only the family it trains.
"""
