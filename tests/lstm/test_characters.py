"""A tagger's tokens carry their casing and characters (`data.characters`): encoded as the files spell them, read the
same in any batch, and what finds a name the training data never had."""

import random
from pathlib import Path

import torch

from project.cli import build
from project.data.text.characters import SPELLING, build_alphabet, casing, spelled
from project.nets.lstm import LSTMTagger
from project.nets.spelling import CASINGS
from tests.conftest import TINY


def test_casing_classes_and_spelled_rows():
    kinds = {token: CASINGS[casing(token) - 1] for token in ("1996", "1996-08-22", "rejects", "EU", "Peter", "p3", ",")}
    assert kinds == {
        "1996": "numeric",
        "1996-08-22": "mainly_numeric",
        "rejects": "all_lower",
        "EU": "all_upper",
        "Peter": "initial_upper",
        "p3": "contains_digit",
        ",": "other",
    }
    alphabet = build_alphabet(["aab", "ba", "c"])
    assert alphabet == ["", "<unk>", "a", "b", "c"]  # most frequent first, ties by code point
    ids = {c: i for i, c in enumerate(alphabet)}
    rows = spelled([7, 1], ["ab", "Zx" + "a" * 30], ids)
    assert rows.shape == (2, 2 + SPELLING) and rows.dtype == torch.int64
    assert rows[0].tolist() == [7, casing("ab"), 2, 3] + [0] * (SPELLING - 2)
    assert rows[1, :4].tolist() == [1, casing("Zxa"), 1, 1] and rows[1, 2:].ne(0).all()  # unknown chars 1, cut at 20


def test_a_spelled_sentence_is_tagged_the_same_alone_and_in_a_padded_batch():
    torch.manual_seed(0)
    net = LSTMTagger(5, vocab_size=30, alphabet_size=12, hidden_size=8, embedding_dim=6, bidirectional=True).eval()
    lengths = torch.tensor([4, 7, 2])
    tokens = torch.randint(1, 12, (3, 7, 2 + SPELLING))
    tokens[..., 1] = tokens[..., 1].clamp_max(len(CASINGS))
    for row, length in enumerate(lengths):
        tokens[row, length:] = 0
    with torch.no_grad():
        batched = net(tokens, lengths)
        for row, length in enumerate(lengths.tolist()):
            alone = net(tokens[row : row + 1, :length], lengths[row : row + 1])
            torch.testing.assert_close(batched[row, :length], alone[0], rtol=1e-5, atol=1e-6)


def _write(path: Path, sentences: list[list[tuple[str, str]]]) -> str:
    path.write_text("\n\n".join("\n".join(f"{w} {t}" for w, t in s) for s in sentences) + "\n")
    return str(path)


def _sentences(count: int, rng: random.Random, names: list[str], fillers: list[str]) -> list[list[tuple[str, str]]]:
    """Lower-case words with one capitalised name at a random place: nothing but its spelling says it is a name."""
    sentences = []
    for _ in range(count):
        words = [(rng.choice(fillers), "O") for _ in range(rng.randint(4, 9))]
        words.insert(rng.randrange(len(words) + 1), (names.pop(), "B-PER"))
        sentences.append(words)
    return sentences


def test_characters_find_names_never_seen_in_training_and_words_alone_cannot(tmp_path):
    rng = random.Random(0)
    letters = "abcdefghijklmnopqrstuvwxyz"
    names = ["".join(rng.choices(letters, k=6)).capitalize() for _ in range(700)]  # each name once
    fillers = ["".join(rng.choices(letters, k=5)) for _ in range(60)]
    new_fillers = ["".join(rng.choices(letters, k=5)) for _ in range(60)]  # test sentences' words are new too
    train = _write(tmp_path / "train.txt", _sentences(400, rng, names, fillers))
    val = _write(tmp_path / "val.txt", _sentences(100, rng, names, new_fillers))
    test = _write(tmp_path / "test.txt", _sentences(100, rng, names, new_fillers))
    scores = {}
    for characters in ("true", "false"):
        files = [f"--data.train_path={train}", f"--data.val_path={val}", f"--data.test_path={test}"]
        small = ["--model.net.init_args.hidden_size=16", "--trainer.max_epochs=6", "--seed_everything=0"]
        cli = build("lstm_tagger", *TINY, *files, f"--data.characters={characters}", *small)
        cli.trainer.fit(cli.model, cli.datamodule)
        scores[characters] = cli.trainer.test(cli.model, cli.datamodule, verbose=False)[0]["test/f1"]
    assert scores["true"] > 0.9 and scores["false"] < 0.3, scores
