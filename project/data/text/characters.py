"""What a tagger reads of a token beyond its word id: its casing and its characters. A name the training data never
had is an unknown word, but `Vilnius` is still capitalised and still ends in `-ius`: on CoNLL-2003, words only are
behind characters and casing (docs/tasks.md, "On real sentences: CoNLL-2003")."""

from collections import Counter
from collections.abc import Iterable

import torch

from project.nets.spelling import CASINGS

SPELLING = 20  # the characters kept of each token (its first ones): all but 0.01 % of CoNLL-2003's


def casing(token: str) -> int:
    """The casing class of `token`, from 1 (`CASINGS`' order)."""
    digits = sum(c.isdigit() for c in token)
    if token.isdigit():
        kind = "numeric"
    elif digits / len(token) > 0.5:
        kind = "mainly_numeric"
    elif digits:  # before the letters' case: `p3`, `F16` (Python finds `p3` lower-case)
        kind = "contains_digit"
    elif token.islower():
        kind = "all_lower"
    elif token.isupper():
        kind = "all_upper"
    elif token[0].isupper():
        kind = "initial_upper"
    else:
        kind = "other"
    return CASINGS.index(kind) + 1


def build_alphabet(tokens: Iterable[str]) -> list[str]:
    """The characters of the training tokens, most frequent first (ties in code-point order, so the ids are
    reproducible), after the padding `""` (id 0) and `"<unk>"` (id 1: a character the training tokens never had)."""
    counts = Counter(c for token in tokens for c in token)
    return ["", "<unk>", *sorted(counts, key=lambda c: (-counts[c], c))]


def spelled(word_ids: list[int], tokens: list[str], alphabet: dict[str, int]) -> torch.Tensor:
    """`[T, 2 + SPELLING]` int64: each token's word id, its casing class, then its first characters' ids (0 past its
    end; 1 for a character the training data never had)."""
    rows = []
    for word, token in zip(word_ids, tokens, strict=True):
        chars = [alphabet.get(c, 1) for c in token[:SPELLING]]
        rows.append([word, casing(token), *chars, *[0] * (SPELLING - len(chars))])
    return torch.tensor(rows, dtype=torch.int64).reshape(len(tokens), 2 + SPELLING)
