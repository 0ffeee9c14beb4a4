"""Word vectors from a file (project/nets/vectors.py, `vectors` of the LSTM): read, checked, carried."""

import pytest
import torch
from runkit import ConfigError, DataError

from project.nets.lstm import LSTMClassifier, LSTMEncoder
from project.nets.vectors import read_vectors

WORDS = ["<pad>", "<unk>", "paris", "rome", "the", "zzz"]


def write(path, lines: list[str]):
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def test_known_words_get_their_vectors_whatever_the_file_s_case(tmp_path):
    glove = write(tmp_path / "glove.txt", ["Paris 1 2 3", "the 0.5 0.5 0.5", "rome 4 5 6", "paris 7 8 9", "Rome 0 0 0"])
    vectors, found = read_vectors(glove, WORDS, 3)
    assert found.tolist() == [False, False, True, True, True, False]
    assert vectors[2].tolist() == [7, 8, 9]  # the word itself wins over another case of it
    assert vectors[3].tolist() == [4, 5, 6]  # the first line of a word in another case is kept against later ones
    word2vec = write(tmp_path / "w2v.vec", ["3 3", "Paris 1 2 3", "the 0.5 0.5 0.5", "rome 4 5 6"])
    vectors, found = read_vectors(word2vec, WORDS, 3)
    assert found.tolist() == [False, False, True, True, True, False] and vectors[2].tolist() == [1, 2, 3]
    # A cased vocabulary (the tagger's) and a lower-case file (GloVe 6B): each case of a word takes its vector.
    cased = ["<pad>", "<unk>", "Paris", "PARIS", "paris", "Rome"]
    vectors, found = read_vectors(write(tmp_path / "lower.txt", ["paris 1 2 3", "rome 4 5 6", "PARIS 7 8 9"]), cased, 3)
    assert found.tolist() == [False, False, True, True, True, True]
    assert vectors[2:].tolist() == [[1, 2, 3], [7, 8, 9], [1, 2, 3], [4, 5, 6]]  # PARIS's own line wins


def test_the_embedding_starts_from_them_padding_at_zero_the_rest_at_their_spread(tmp_path):
    torch.manual_seed(0)
    lines = [f"{w} " + " ".join(str(float(i + j)) for j in range(8)) for i, w in enumerate(WORDS[2:5])]
    encoder = LSTMEncoder(
        vocab_size=len(WORDS), embedding_dim=8, hidden_size=4, vectors=str(write(tmp_path / "v.txt", lines))
    )
    said = encoder.load_vectors(WORDS)
    weight = encoder.embedding.weight
    assert weight[2:5].tolist() == [[float(i + j) for j in range(8)] for i in range(3)]
    assert weight[0].abs().sum() == 0 and "3 of the 4 words" in said and bool(encoder.vectors_loaded)
    expected = torch.tensor([[float(i + j) for j in range(8)] for i in range(3)]).std()
    assert abs(torch.cat([weight[1], weight[5]]).std() - expected) / expected < 0.5


def test_frozen_vectors_do_not_move_and_the_checkpoint_carries_them(tmp_path):
    """Through the CLI on the generated texts: fit with frozen vectors, then load the checkpoint with the file gone."""
    from project.cli import build
    from project.models.sequence import SequenceModel
    from tests.conftest import SMALL, TINY

    torch.manual_seed(0)
    words = [f"w{i}" for i in range(60)]
    path = write(
        tmp_path / "vectors.txt", [f"{w} " + " ".join(f"{v:.4f}" for v in torch.randn(16).tolist()) for w in words]
    )
    args = [*TINY, *SMALL["lstm"], "--trainer.max_epochs=1", "--model.net.init_args.embedding_dim=16",
            f"--model.net.init_args.vectors={path}", "--model.net.init_args.freeze_vectors=true",
            f"--trainer.default_root_dir={tmp_path}"]  # fmt: skip
    cli = build("lstm", *args)
    cli.trainer.fit(cli.model, cli.datamodule)
    vocabulary = cli.datamodule.vocabulary.tokens
    expected, found = read_vectors(path, vocabulary, 16)
    weight = cli.model.net.features.embedding.weight
    assert found.sum() >= 50 and torch.equal(weight[found], expected[found]) and not weight.requires_grad
    checkpoint = cli.trainer.checkpoint_callback.last_model_path
    path.unlink()
    restored = SequenceModel.load_from_checkpoint(checkpoint, map_location="cpu")
    assert torch.equal(restored.net.features.embedding.weight, weight.detach().cpu())


@pytest.mark.parametrize(
    ("lines", "said"),
    [
        (
            ["2 5", "paris 1 2 3 4 5"],
            "line 1: vectors of width 5, the embedding's is 3; set --model.net.init_args.embedding_dim 5",
        ),
        (["paris 1 2", "rome 1 2"], "line 1: vectors of width 2, the embedding's is 3"),
        (
            ["paris 1 2 3", "rome 1 2 3", "the 1 2 3", "zzz 1 2"],
            "line 4: 2 numbers after the word where the lines before have 3",
        ),
        (["paris 1 2 3", "rome 1 x 3"], "line 2: a value that is not a number after 'rome'"),
    ],
)
def test_a_malformed_file_is_refused_naming_the_file_and_line(tmp_path, lines, said):
    path = write(tmp_path / "vectors.txt", lines)
    with pytest.raises(DataError, match=f"{path}, {said}".replace(".", r"\.")):
        read_vectors(path, WORDS, 3)


def test_a_file_not_in_utf8_is_refused_naming_the_line(tmp_path):
    path = tmp_path / "latin1.txt"
    path.write_bytes("paris 1 2 3\nrome 1 2 3\ncaf\u00e9 1 2 3\n".encode("latin-1"))
    with pytest.raises(DataError, match="line 3: not UTF-8.*save the file as UTF-8"):
        read_vectors(path, WORDS, 3)
    with pytest.raises(DataError, match="no such vectors file"):
        read_vectors(tmp_path / "absent.txt", WORDS, 3)


def test_vectors_need_words():
    with pytest.raises(ConfigError, match="token ids"):
        LSTMClassifier(2, num_channels=3, vectors="glove.txt")
    with pytest.raises(ConfigError, match="give the file"):
        LSTMClassifier(2, vocab_size=10, freeze_vectors=True)
