"""LightningDataModules, their datasets and their batching: one package per modality.

`base.py` (the shared DataModule: splits, loaders) and `sampling.py` (resumable, DDP-sharded orders)
serve all three; `images/`, `text/` and `graphs/` each hold their DataModules, readers and generated
tasks. Configs name a DataModule by its package (`project.data.MODALITY.NameDataModule`), so
a run imports only its modality, and only graph runs import PyG.
"""
