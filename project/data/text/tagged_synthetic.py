"""Generated sentences with entities to tag (BIO): people, places and companies, some of whose words are shared.

A person follows `mr`, `ms` or `dr`; a place follows `in`, `at` or `from`; a company ends in `corp` or `inc`.
Entities are one to three words long, and a third of the name words may be any type's: which type a shared word
has, and whether it begins or continues a span, only its neighbours say.
"""

import random

TYPES = {"PER": ("mr", "ms", "dr"), "LOC": ("in", "at", "from")}
SUFFIXES = ("corp", "inc")


def generate_tagged(num_sentences: int, seed: int = 0) -> list[tuple[list[str], list[str]]]:
    """`(tokens, tags)` pairs, 5 to 30 tokens each; deterministic by seed."""
    rng = random.Random(seed)
    fillers = [f"w{i}" for i in range(150)]
    shared = [f"n{i}" for i in range(20)]
    names = {kind: [f"{kind.lower()}{i}" for i in range(30)] + shared for kind in ("PER", "LOC", "ORG")}
    sentences = []
    for _ in range(num_sentences):
        tokens, tags, length = [], [], rng.randint(5, 30)
        while len(tokens) < length:
            kind = rng.choice(["PER", "LOC", "ORG", None, None])
            if kind is None:
                tokens.append(rng.choice(fillers))
                tags.append("O")
                continue
            words = rng.choices(names[kind], k=rng.randint(1, 3))
            if kind in TYPES:
                tokens.append(rng.choice(TYPES[kind]))
                tags.append("O")
                entity = words
            else:
                entity = [*words, rng.choice(SUFFIXES)]
            tokens += entity
            tags += [f"B-{kind}"] + [f"I-{kind}"] * (len(entity) - 1)
        sentences.append((tokens, tags))
    return sentences
