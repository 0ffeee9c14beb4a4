"""A token's casing and characters as features beside its word embedding: what a tagger knows of a word it never saw
in training (a capitalised `Vilnius` ending in `-ius`). The characters are read by a convolution and a max over
the word, as Ma & Hovy's BiLSTM-CNN-CRF does (2016)."""

import torch
from torch import nn

# The casing classes a token's row names, from 1 (after Reimers & Gurevych 2017; project/data/text/characters.py
# classifies); 0 is the padding.
CASINGS = ("numeric", "mainly_numeric", "all_lower", "all_upper", "initial_upper", "contains_digit", "other")


class Spelling(nn.Module):
    """Rows `[..., 1 + W]` (a casing class, then W character ids, 0 the padding) → `[..., out_dim]`: the casing's
    embedding beside the character CNN's max over the word.

    Each token is read alone, over its own W characters, so a token's features are the same in any batch."""

    def __init__(self, alphabet_size: int, char_dim: int = 25, char_channels: int = 50, case_dim: int = 4) -> None:
        super().__init__()
        self.casing = nn.Embedding(len(CASINGS) + 1, case_dim, padding_idx=0)
        self.chars = nn.Embedding(alphabet_size, char_dim, padding_idx=0)
        self.conv = nn.Conv1d(char_dim, char_channels, kernel_size=3, padding=1)
        self.out_dim = case_dim + char_channels

    def forward(self, rows: torch.Tensor) -> torch.Tensor:
        lead = rows.shape[:-1]
        chars = self.chars(rows[..., 1:].reshape(-1, rows.shape[-1] - 1))  # [tokens, W, char_dim]
        spelled = self.conv(chars.transpose(1, 2)).amax(dim=2)  # [tokens, char_channels]
        return torch.cat([self.casing(rows[..., 0]), spelled.reshape(*lead, -1)], dim=-1)
