"""Word vectors from a file (GloVe, word2vec text, fastText `.vec`) for the words of a vocabulary.

Read by hand, not by gensim or torchtext: the format is one word and its numbers per line, and what a library would
not do is the part that matters here: name the file and line of a bad row, and match a lower-casing tokenizer's
words to a file that keeps case."""

from pathlib import Path

import torch
from runkit import DataError


def read_vectors(path: str | Path, words: list[str], width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The vectors `[len(words), width]` of `words` and which were found `[len(words)]` (rows of words not found are
    zero). word2vec's and fastText's first line, `count width`, is read as a header; GloVe has none. A word found
    only in another case takes the first such line (files list the frequent words first): `Paris` for a lower-casing
    tokenizer's `paris`, and GloVe's lower-case `paris` for a cased tagger's `Paris` and `PARIS`."""
    path = Path(path)
    if not path.is_file():
        raise DataError(f"{path}: no such vectors file; give a GloVe, word2vec text or fastText .vec file")
    wanted = {word: i for i, word in enumerate(words)}
    folded: dict[str, list[int]] = {}  # lower-cased: the vocabulary's words of each
    for i, word in enumerate(words):
        folded.setdefault(word.lower(), []).append(i)
    vectors = torch.zeros(len(words), width)
    exact = torch.zeros(len(words), dtype=torch.bool)
    found = torch.zeros(len(words), dtype=torch.bool)
    with path.open("rb") as lines:
        for number, raw in enumerate(lines, 1):
            try:
                line = raw.decode("utf-8").rstrip("\r\n")
            except UnicodeDecodeError as error:
                raise DataError(f"{path}, line {number}: not UTF-8 ({error.reason}); save the file as UTF-8") from None
            fields = line.rstrip(" ").split(" ")
            if number == 1 and len(fields) == 2 and all(f.isdigit() for f in fields):
                if int(fields[1]) != width:
                    raise DataError(wrong_width(path, number, int(fields[1]), width))
                continue  # word2vec / fastText header
            if len(fields) == 1 and not fields[0]:
                continue  # a blank line
            if len(fields) - 1 > width and not number_like(fields[1]):
                continue  # a word with spaces in it (GloVe 840B has a few): no tokenizer here makes one
            if len(fields) - 1 != width:
                if number <= 2:
                    raise DataError(wrong_width(path, number, len(fields) - 1, width))
                raise DataError(
                    f"{path}, line {number}: {len(fields) - 1} numbers after the word where the lines before have "
                    f"{width}; every line is a word and {width} numbers, separated by single spaces"
                )
            word = fields[0]
            index = wanted.get(word)
            # this word's other cases in the vocabulary, not found yet; the word itself, unless its own line came first
            indices = [i for i in folded.get(word.lower(), ()) if not found[i] and i != index]
            if index is not None and not exact[index]:
                exact[index] = True
                indices.append(index)
            if not indices:
                continue
            try:
                vectors[indices] = torch.tensor([float(f) for f in fields[1:]])
            except ValueError:
                raise DataError(f"{path}, line {number}: a value that is not a number after {word!r}") from None
            found[indices] = True
    return vectors, found


def wrong_width(path: Path, number: int, width: int, expected: int) -> str:
    return (
        f"{path}, line {number}: vectors of width {width}, the embedding's is {expected}; set "
        f"--model.net.init_args.embedding_dim {width}"
    )


def number_like(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
