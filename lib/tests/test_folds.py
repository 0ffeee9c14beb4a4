"""k-fold cross-validation's indices: the validation folds partition the range; the toy's DataModule takes a fold."""

import pytest
from runkit import ConfigError, fold_split


def test_fold_indices_partition_the_range():
    held = [fold_split(103, 5, k, seed=3) for k in range(5)]
    for val, train in held:
        assert not set(val) & set(train) and sorted(val + train) == list(range(103))
    assert sorted(i for val, _ in held for i in val) == list(range(103))
    assert {len(val) for val, _ in held} == {20, 21}
    with pytest.raises(ConfigError, match="2 <= folds"):
        fold_split(10, 1, 0, seed=0)


def test_a_datamodule_takes_a_fold_of_its_pooled_training_and_validation_samples(build_small):
    datamodule = build_small("--data.num_train=90", "--data.num_val=30").datamodule
    datamodule.setup("fit")
    pool = {tuple(x.tolist()) for split in (datamodule.train_set, datamodule.val_set) for x, _ in split}
    datamodule.use_fold(4, 1, seed=0)
    train = [tuple(x.tolist()) for x, _ in datamodule.train_set]
    val = [tuple(x.tolist()) for x, _ in datamodule.val_set]
    assert len(val) == 30 and len(train) == 90 and set(train) | set(val) == pool and not set(train) & set(val)
