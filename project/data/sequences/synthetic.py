"""A generated task for numeric sequences: which channel holds a bump, and whether it rises or dips.

Three noisy channels drift as random walks; one bump (a rise or a dip a few steps wide) sits at a random place
in channel x or y, the third channel only drifts. Lengths vary, so the padding and the lengths matter, and the
bump can be anywhere, so a model must read the whole sequence.
"""

import numpy as np

CLASSES = ("x_rise", "x_dip", "y_rise", "y_dip")
CHANNELS = ("x", "y", "z")


def generate_sequences(
    num_samples: int, min_length: int = 20, max_length: int = 100, seed: int = 0
) -> list[tuple[np.ndarray, str]]:
    """`(values [T, 3] float32, class)` pairs, lengths uniform in [min_length, max_length]; deterministic by seed."""
    rng = np.random.default_rng(seed)
    samples = []
    for _ in range(num_samples):
        length = int(rng.integers(min_length, max_length + 1))
        values = np.cumsum(rng.normal(0, 0.3, (length, len(CHANNELS))), axis=0)
        label = CLASSES[int(rng.integers(len(CLASSES)))]
        channel, sign = CHANNELS.index(label[0]), 1.0 if label.endswith("rise") else -1.0
        centre, width = rng.uniform(0, length), rng.uniform(1.5, 4)
        values[:, channel] += sign * 3 * np.exp(-0.5 * ((np.arange(length) - centre) / width) ** 2)
        samples.append((values.astype(np.float32), label))
    return samples
