"""LightningModules: `ClassificationModule` holds everything the three families share.

Each family's file only says how its batch is unpacked. Import them by their module path
(`project.models.image.ImageClassifier`) so a run imports only the family it trains.
"""
