"""A sequence task whose label is decided at the end: the last class marker in the sequence wins.

Each sequence is filler words with a class marker among its last 3 words, and, in longer
sequences, markers of other classes earlier on. A model that reads the padding after the end, or
truncates the end away, answers from a distractor and fails.
"""

import random

from runkit import ConfigError

MARKERS = ("alpha", "beta", "gamma", "delta")


def generate_texts(
    num_samples: int, min_length: int = 5, max_length: int = 200, vocab_size: int = 100, seed: int = 0
) -> list[tuple[str, str]]:
    """`(text, label)` rows; lengths uniform in [min_length, max_length]; deterministic by seed."""
    if min_length < 4:
        raise ConfigError(f"min_length must be >= 4 (the marker sits among the last 3 words), got {min_length}")
    rng = random.Random(seed)
    fillers = [f"w{i}" for i in range(vocab_size)]
    rows = []
    for _ in range(num_samples):
        length = rng.randint(min_length, max_length)
        words = rng.choices(fillers, k=length)
        label = rng.choice(MARKERS)
        words[length - 1 - rng.randrange(3)] = label
        if length > 12:
            for _ in range(rng.randint(1, 3)):
                words[rng.randrange(length - 10)] = rng.choice([m for m in MARKERS if m != label])
        rows.append((" ".join(words), label))
    return rows
