"""k-fold cross-validation over a DataModule's own split: the validation folds partition the pooled samples."""

from collections import Counter

import pytest
import torch
from runkit import ConfigError, fold_split

from tests.conftest import FAMILIES, SMALL


def test_fold_indices_partition_the_range():
    held = [fold_split(103, 5, k, seed=3) for k in range(5)]
    for val, train in held:
        assert not set(val) & set(train) and sorted(val + train) == list(range(103))
    assert sorted(i for val, _ in held for i in val) == list(range(103))
    assert {len(val) for val, _ in held} == {20, 21}
    with pytest.raises(ConfigError, match="2 <= folds"):
        fold_split(10, 1, 0, seed=0)


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
