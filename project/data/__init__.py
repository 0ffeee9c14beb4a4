"""LightningDataModules, their datasets and their batching, one file per modality.

Import them by module path (`project.data.images.ShapesDataModule`) so a run imports only its modality.
"""
