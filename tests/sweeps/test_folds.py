"""k-fold cross-validation over each family's DataModule: the validation folds partition the pooled samples. (The
folds' indices: runkit's own tests, test_folds.py.)"""

from collections import Counter

import pytest
import torch

from tests.conftest import FAMILIES, SMALL


def key(sample) -> bytes:
    """A sample's content, whatever it holds (tensors, labels, a PyG graph)."""
    if isinstance(sample, torch.Tensor):
        return sample.contiguous().numpy().tobytes() + str(sample.dtype).encode()
    if isinstance(sample, tuple | list):
        return b"|".join(key(part) for part in sample)
    if hasattr(sample, "to_dict"):
        return b"|".join(name.encode() + key(value) for name, value in sorted(sample.to_dict().items()))
    return repr(sample).encode()


@pytest.mark.parametrize("model", FAMILIES)
def test_each_family_datamodule_folds_partition_training_and_validation(model):
    from project.cli import build

    def datamodule():
        cli = build(model, *SMALL[model])
        cli.datamodule.prepare_data()
        cli.datamodule.setup("fit")
        return cli.datamodule

    original = datamodule()
    pool = Counter(key(s) for split in (original.train_set, original.val_set) for s in split)
    folds, seen = 3, Counter()
    for fold in range(folds):
        dm = datamodule()
        test_before = [key(s) for s in dm.test_set]
        dm.use_fold(folds, fold, seed=0)
        train, val = Counter(key(s) for s in dm.train_set), Counter(key(s) for s in dm.val_set)
        assert train + val == pool  # every sample in one part or the other
        seen += val
        assert [key(s) for s in dm.test_set] == test_before  # the test split stays
        dm.train_dataloader(), dm.val_dataloader()  # the loaders take a fold as they take a split
    assert seen == pool  # the validation folds cover the pool exactly once
