"""Tokenizers and a vocabulary built from the training split only."""

import re
from collections import Counter
from collections.abc import Iterable
from typing import Literal

from runkit import ConfigError

PAD, UNK = "<pad>", "<unk>"
Tokenizer = Literal["words", "whitespace", "char"]
WORD = re.compile(r"\w+|[^\w\s]")


def tokenize(text: str, tokenizer: Tokenizer) -> list[str]:
    """`words`: lower-cased runs of letters and digits, each other mark a token of its own (`"Hello, world!"` →
    `hello , world !`: punctuation is neither glued to a word nor lost); `whitespace`: the lower-cased text split
    at spaces; `char`: every character, spaces included."""
    if tokenizer == "words":
        return WORD.findall(text.lower())
    if tokenizer == "whitespace":
        return text.lower().split()
    if tokenizer == "char":
        return list(text)
    raise ConfigError(f"unknown tokenizer {tokenizer!r}: use words, whitespace or char")


class Vocabulary:
    """Token ↔ id. `<pad>` is 0 (the embedding's padding_idx) and `<unk>` is 1.

    Built from the training split only: counting validation tokens would leak them into training.
    """

    def __init__(self, tokens: list[str]) -> None:
        if tokens[:2] != [PAD, UNK]:
            raise ConfigError(f"a vocabulary starts with {PAD!r}, {UNK!r}; got {tokens[:2]}")
        self.tokens = tokens
        self.index = {token: i for i, token in enumerate(tokens)}

    @classmethod
    def build(cls, texts: Iterable[list[str]], min_freq: int = 1, max_size: int | None = None) -> "Vocabulary":
        """Most frequent first (ties alphabetical, so the ids are reproducible), `max_size` including pad and unk."""
        counts = Counter(token for tokens in texts for token in tokens)
        kept = sorted((t for t, n in counts.items() if n >= min_freq), key=lambda t: (-counts[t], t))
        if max_size is not None:
            kept = kept[: max(max_size - 2, 0)]
        return cls([PAD, UNK, *kept])

    def __len__(self) -> int:
        return len(self.tokens)

    def encode(self, tokens: list[str]) -> list[int]:
        return [self.index.get(token, 1) for token in tokens]
