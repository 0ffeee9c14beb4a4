"""LightningDataModules, their datasets and their batching, one file per modality.

The configs name them by module path, so a run imports only its modality.
"""
