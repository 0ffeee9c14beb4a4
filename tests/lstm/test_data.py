import json

import pytest
import torch
from runkit import BucketBatchSampler, EpochRandomSampler, PadCollate, padding_fraction, read_text_file
from torch.utils.data import DistributedSampler, SequentialSampler

from project.data.text import TextClassificationDataModule
from project.data.text.synthetic import MARKERS, generate_texts
from project.data.text.vocab import Vocabulary, tokenize


def test_synthetic_label_is_the_last_marker():
    rows = generate_texts(300, seed=0)
    assert rows == generate_texts(300, seed=0) and rows != generate_texts(300, seed=1)
    lengths = [len(text.split()) for text, _ in rows]
    assert min(lengths) >= 5 and max(lengths) <= 200 and max(lengths) - min(lengths) > 150
    distracted = 0
    for text, label in rows:
        words = text.split()
        markers = [w for w in words if w in MARKERS]
        assert markers[-1] == label and label in words[-3:]
        distracted += any(m != label for m in markers)
    assert distracted > 200  # most sequences carry a wrong marker earlier on


def test_vocabulary_from_training_texts_only():
    vocab = Vocabulary.build([["b", "a", "b"], ["c", "b", "a"]], min_freq=2)
    assert vocab.tokens == ["<pad>", "<unk>", "b", "a"]
    assert vocab.encode(["a", "c", "zzz"]) == [3, 1, 1]
    assert Vocabulary.build([["b", "a", "b", "c"]], max_size=3).tokens == ["<pad>", "<unk>", "b"]
    assert tokenize("Hello  World", "whitespace") == ["hello", "world"]
    assert tokenize("ab c", "char") == ["a", "b", " ", "c"]


def test_collate_pads_to_the_longest_in_the_batch():
    tokens, lengths, labels = PadCollate()([(torch.tensor([5, 6, 7]), 1), (torch.tensor([8]), 0)])
    assert tokens.tolist() == [[5, 6, 7], [8, 0, 0]]
    assert lengths.tolist() == [3, 1] and lengths.dtype == torch.int64
    assert labels.tolist() == [1, 0]


def bucket_sampler(lengths, sampler=None, batch_size=8, **kwargs) -> BucketBatchSampler:
    sampler = sampler or EpochRandomSampler(range(len(lengths)), seed=0)
    return BucketBatchSampler(sampler, batch_size=batch_size, drop_last=False, lengths=lengths, pool_factor=4, **kwargs)


def batches_of_epoch(sampler: BucketBatchSampler, number: int) -> list[list[int]]:
    sampler.sampler.set_epoch(number)  # as Lightning does at every epoch start
    return list(sampler)


def test_bucketing_covers_every_sample_and_cuts_padding():
    lengths = torch.randint(5, 200, (203,), generator=torch.Generator().manual_seed(0)).tolist()
    sampler = bucket_sampler(lengths)
    epoch_1, epoch_2 = batches_of_epoch(sampler, 0), batches_of_epoch(sampler, 1)
    for epoch in (epoch_1, epoch_2):
        assert sorted(i for batch in epoch for i in batch) == list(range(203))
        assert len(epoch) == len(sampler)
    assert epoch_1 != epoch_2  # a new order every epoch
    plain = [list(range(203))[i : i + 8] for i in range(0, 203, 8)]
    assert padding_fraction(epoch_1, lengths) < 0.2 < padding_fraction(plain, lengths)


def test_bucketing_is_a_function_of_seed_and_epoch():
    lengths = list(range(5, 105))
    first = batches_of_epoch(bucket_sampler(lengths, sampler=EpochRandomSampler(range(100), seed=7)), 3)
    again = batches_of_epoch(bucket_sampler(lengths, sampler=EpochRandomSampler(range(100), seed=7)), 3)
    other_seed = batches_of_epoch(bucket_sampler(lengths, sampler=EpochRandomSampler(range(100), seed=8)), 3)
    assert first == again != other_seed


def test_bucketing_under_ddp_shares_out_the_batches_of_one_process_with_the_whole_batch():
    lengths = torch.randint(5, 200, (96,), generator=torch.Generator().manual_seed(0)).tolist()
    whole = batches_of_epoch(bucket_sampler(lengths, sampler=EpochRandomSampler(range(96), seed=5), batch_size=8), 2)
    shards = []
    for rank in (0, 1):
        shard = EpochRandomSampler(range(96), num_replicas=2, rank=rank, seed=5)
        shards.append(batches_of_epoch(bucket_sampler(lengths, sampler=shard, batch_size=4), 2))
    assert len(shards[0]) == len(shards[1]) == len(whole) == 12
    for joint, half_0, half_1 in zip(whole, *shards, strict=True):
        assert sorted(half_0 + half_1) == sorted(joint) and len(half_0) == len(half_1) == 4


def test_a_restored_loader_continues_mid_epoch_and_starts_the_next_epoch_afresh():
    from torchdata.stateful_dataloader import StatefulDataLoader

    lengths = list(range(5, 205))

    def loader() -> StatefulDataLoader:
        return StatefulDataLoader(range(200), batch_sampler=bucket_sampler(lengths), collate_fn=list)

    uninterrupted = loader()
    uninterrupted.batch_sampler.sampler.set_epoch(1)
    expected = list(uninterrupted)
    stopped = loader()
    stopped.batch_sampler.sampler.set_epoch(1)
    batches = iter(stopped)
    seen = [next(batches) for _ in range(5)]
    resumed = loader()
    resumed.load_state_dict(stopped.state_dict())
    assert seen + list(resumed) == expected
    finished = loader()
    finished.load_state_dict(resumed.state_dict())  # saved after the epoch's last batch
    batches = iter(finished)  # Lightning's order: the iterator first, then set_epoch, then the batches
    finished.batch_sampler.sampler.set_epoch(2)
    assert list(batches) == batches_of_epoch(bucket_sampler(lengths), 2)


def test_lightning_rebuilds_the_bucket_sampler_around_a_distributed_sampler():
    from lightning.fabric.utilities.data import _replace_dunder_methods
    from lightning.pytorch.utilities.data import _update_dataloader
    from torch.utils.data import BatchSampler, DataLoader

    dm = TextClassificationDataModule(synthetic_samples=200, batch_size=8)
    dm.setup("fit")
    # As the Trainer calls train_dataloader(): recording init arguments so it can rebuild the loader.
    with _replace_dunder_methods(DataLoader, "dataset"), _replace_dunder_methods(BatchSampler):
        loader = dm.train_dataloader()
    distributed = DistributedSampler(dm.train_set, num_replicas=2, rank=1, shuffle=True)
    rebuilt = _update_dataloader(loader, distributed)
    assert isinstance(rebuilt.batch_sampler, BucketBatchSampler)
    assert rebuilt.batch_sampler.sampler is distributed
    assert rebuilt.batch_sampler.lengths is dm.train_set.lengths


def test_datamodule_splits_and_batches(tmp_path):
    dm = TextClassificationDataModule(synthetic_samples=400, batch_size=16, seed=1)
    assert dm.class_names == sorted(MARKERS) and dm.vocab_size == 2 + 100 + 4
    dm.setup("fit")
    assert (len(dm.train_set), len(dm.val_set), len(dm.test_set)) == (320, 40, 40)
    tokens, lengths, labels = next(iter(dm.train_dataloader()))
    assert labels.shape == (16,)
    assert tokens.shape == (16, int(lengths.max())) and lengths.min() >= 5
    assert isinstance(dm.val_dataloader().sampler, SequentialSampler)
    plain = TextClassificationDataModule(synthetic_samples=400, batch_size=16, seed=1, bucketing=False)
    plain.setup("fit")
    assert isinstance(plain.train_dataloader().sampler, EpochRandomSampler)


@pytest.mark.parametrize(("side", "kept"), [("left", ["c", "d"]), ("right", ["a", "b"])])
def test_truncation_keeps_the_configured_end(tmp_path, side, kept):
    path = tmp_path / "train.csv"
    path.write_text("text,label\na b c d,x\nb,y\n")
    dm = TextClassificationDataModule(
        train_path=str(path), val_fraction=0, test_fraction=0, max_length=2, truncation_side=side
    )
    dm.setup("fit")
    row = next(i for i, r in enumerate(dm.train_set.rows) if r.label == "x")
    assert dm.vocabulary.encode(kept) == dm.train_set.items[row].tolist()


# ---- real files --------------------------------------------------------------------------------


def write_files(tmp_path, kind: str = "csv"):
    rows = generate_texts(60, min_length=5, max_length=20, seed=0)
    if kind == "jsonl":
        body = "".join(json.dumps({"sentence": t, "y": y}) + "\n" for t, y in rows)
    else:
        sep = "," if kind == "csv" else "\t"
        body = f"sentence{sep}y\n" + "".join(f"{t}{sep}{y}\n" for t, y in rows)
    (tmp_path / f"train.{kind}").write_text(body)
    return tmp_path / f"train.{kind}"


@pytest.mark.parametrize("kind", ["csv", "tsv", "jsonl"])
def test_reads_csv_tsv_and_jsonl(tmp_path, kind):
    path = write_files(tmp_path, kind)
    dm = TextClassificationDataModule(train_path=str(path), text_field="sentence", label_field="y", batch_size=8)
    dm.setup("fit")
    assert len(dm.train_set) + len(dm.val_set) + len(dm.test_set) == 60
    assert dm.class_names == sorted(MARKERS)
    assert dm.train_set.rows[0].line >= 2 if kind != "jsonl" else dm.train_set.rows[0].line >= 1


def test_a_quoted_csv_text_may_hold_commas_and_newlines(tmp_path):
    path = tmp_path / "t.csv"
    path.write_text('text,label\n"one, two\nthree",a\nfour,b\n')
    rows = read_text_file(path)
    assert [(r.text, r.label, r.line) for r in rows] == [("one, two\nthree", "a", 2), ("four", "b", 4)]


def test_separate_files_and_a_label_never_seen_in_training(tmp_path):
    (tmp_path / "train.csv").write_text("text,label\na b,pos\nc d,neg\n")
    (tmp_path / "val.csv").write_text("text,label\na,pos\nb,neutral\n")
    dm = TextClassificationDataModule(train_path=str(tmp_path / "train.csv"), val_path=str(tmp_path / "val.csv"))
    with pytest.raises(ValueError, match=r"val.csv, line 3: label 'neutral' never occurs in the training data"):
        dm.setup("fit")


def test_a_missing_column_is_named(tmp_path):
    (tmp_path / "t.csv").write_text("review,label\ngood,pos\n")
    with pytest.raises(ValueError, match=r"t.csv, line 1: no column 'text' \(columns: review, label\)"):
        TextClassificationDataModule(train_path=str(tmp_path / "t.csv"))


def test_empty_texts_are_skipped_with_a_count(tmp_path):
    (tmp_path / "t.tsv").write_text("text\tlabel\ngood\tpos\n   \tneg\n\tneg\nbad\tneg\n")
    with pytest.warns(UserWarning, match=r"t.tsv: skipped 2 row\(s\) with an empty text, at line\(s\) 3, 4"):
        rows = read_text_file(tmp_path / "t.tsv")
    assert [r.text for r in rows] == ["good", "bad"]


def test_a_text_column_of_empty_texts_and_a_label_column_of_one_class_are_named(tmp_path):
    (tmp_path / "blank.csv").write_text("text,label,review\n ,pos,good\n,neg,bad\n")
    with pytest.raises(ValueError, match=r"blank.csv: every text of column 'text' is empty \(2 rows\).*text_field"):
        TextClassificationDataModule(train_path=str(tmp_path / "blank.csv"))
    (tmp_path / "one.csv").write_text("text,label,stars\n" + "".join(f"w{i},pos,{i % 2}\n" for i in range(20)))
    with pytest.raises(ValueError, match=r"one.csv: column 'label' holds one class, 'pos'.*label_field"):
        TextClassificationDataModule(train_path=str(tmp_path / "one.csv"))
    assert TextClassificationDataModule(train_path=str(tmp_path / "one.csv"), label_field="stars").num_classes == 2


@pytest.mark.parametrize(
    ("name", "content", "message"),
    [
        ("bad.csv", b"text,label\na,b\nc,d,e\n", r"bad.csv, line 3: 3 fields where the header has 2"),
        ("bad.jsonl", b'{"text": "a", "label": "x"}\n{"text": "b", \n', r"bad.jsonl, line 2: not valid JSON"),
        ("keys.jsonl", b'{"text": "a"}\n', r"keys.jsonl, line 1: no key 'label'"),
        ("empty.csv", b"  \n", r"empty.csv: the file is empty"),
        ("latin.csv", b"text,label\nok,a\ncaf\xe9,b\n", r"latin.csv, line 3: not UTF-8"),
        ("data.xlsx", b"PK", r"unknown format '.xlsx'"),
    ],
)
def test_broken_files_name_the_file_and_line(tmp_path, name, content, message):
    (tmp_path / name).write_bytes(content)
    with pytest.raises(ValueError, match=message):
        read_text_file(tmp_path / name)
    assert (tmp_path / name).read_bytes() == content  # nothing written


def test_a_missing_file_is_named(tmp_path):
    with pytest.raises(FileNotFoundError, match="nope.csv: no such file"):
        TextClassificationDataModule(train_path=str(tmp_path / "nope.csv"))


@pytest.mark.parametrize(("side", "bounds"), [("left", (1.0, 1.0)), ("right", (0.0, 0.45))])
def test_truncating_the_wrong_end_loses_the_synthetic_label(side, bounds):
    dm = TextClassificationDataModule(synthetic_samples=600, max_length=30, truncation_side=side)
    dm.setup("fit")
    markers = {dm.vocabulary.index[m]: m for m in MARKERS}
    long_rows = [i for i, r in enumerate(dm.train_set.rows) if len(r.text.split()) > 30]
    found = 0
    for i in long_rows:
        kept = [markers[t] for t in dm.train_set.items[i].tolist() if t in markers]
        found += bool(kept) and kept[-1] == dm.class_names[dm.train_set.labels[i]]
    assert len(long_rows) > 300
    assert bounds[0] <= found / len(long_rows) <= bounds[1]


def test_a_first_small_text_set_trains_with_its_batch_capped_at_the_training_split():
    """docs/your-data.md's first command on 40 short texts: a batch of 64 with drop_last would leave none."""
    datamodule = TextClassificationDataModule(synthetic_samples=40, batch_size=64)
    datamodule.setup("fit")
    batches = list(datamodule.train_dataloader())
    assert len(batches) == 1 and len(batches[0][-1]) == len(datamodule.train_set)


def test_the_words_tokenizer_splits_off_punctuation_and_lowercases():
    assert tokenize("Hello, world! It's 3pm.", "words") == ["hello", ",", "world", "!", "it", "'", "s", "3pm", "."]
    assert tokenize("Hello, world!", "whitespace") == ["hello,", "world!"]
