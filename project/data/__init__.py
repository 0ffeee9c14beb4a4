"""LightningDataModules, their datasets and their batching: one package per modality.

runkit's `BaseDataModule` (splits, loaders) and samplers (resumable, DDP-sharded orders) serve them all;
`images/`, `text/`, `sequences/`, `series/` and `graphs/` each hold their DataModules, readers and generated
tasks. Configs name a DataModule by its package (`project.data.MODALITY.NameDataModule`), so
a run imports only its modality, and only graph runs import PyG.
"""
