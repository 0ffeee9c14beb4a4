"""A linear-chain CRF over per-step scores: the likelihood of a whole tag sequence, and its best sequence (Viterbi).

PyTorch-native, not a package: pytorch-crf, the one most used, has had no release since 2019. A CRF scores a tag
sequence as the sum of each step's emission score plus a learned score for each pair of neighbouring tags (and for
the first and the last tag), so a tag can depend on its neighbours' tags, not only on the LSTM's reading: an `I-PER`
after `O` can be made costly. tests/test_task_tagging.py checks both against enumerating every sequence.
"""

import torch
from torch import nn


class CRF(nn.Module):
    """Transitions `[tags, tags]` (from, to), start and end scores; emissions `[batch, time, tags]`, the valid steps
    of each sequence first (`lengths`)."""

    def __init__(self, num_tags: int) -> None:
        super().__init__()
        # Zero at the start: the untrained CRF adds nothing, so its first loss is the plain head's.
        self.transitions = nn.Parameter(torch.zeros(num_tags, num_tags))
        self.start = nn.Parameter(torch.zeros(num_tags))
        self.end = nn.Parameter(torch.zeros(num_tags))

    def score(self, emissions: torch.Tensor, tags: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """The score `[batch]` of the given tag sequences (padding steps' tags may be anything)."""
        steps = torch.arange(emissions.shape[1], device=emissions.device)
        valid = steps < lengths.unsqueeze(1)  # [batch, time]
        tags = tags.clamp_min(0) * valid  # padding: tag 0, masked out below
        emitted = emissions.gather(2, tags.unsqueeze(-1)).squeeze(-1)  # [batch, time]
        moved = self.transitions[tags[:, :-1], tags[:, 1:]] * valid[:, 1:]
        last = tags.gather(1, (lengths - 1).unsqueeze(1)).squeeze(1)
        return self.start[tags[:, 0]] + (emitted * valid).sum(1) + moved.sum(1) + self.end[last]

    def log_partition(self, emissions: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """log Σ exp(score) over every tag sequence `[batch]` (the forward algorithm)."""
        alpha = self.start + emissions[:, 0]  # [batch, tags]
        for t in range(1, emissions.shape[1]):
            step = torch.logsumexp(alpha.unsqueeze(2) + self.transitions + emissions[:, t].unsqueeze(1), dim=1)
            alpha = torch.where((t < lengths).unsqueeze(1), step, alpha)  # a finished sequence keeps its alpha
        return torch.logsumexp(alpha + self.end, dim=1)

    def nll(self, emissions: torch.Tensor, tags: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """The negative log-likelihood of each tag sequence `[batch]`."""
        return self.log_partition(emissions, lengths) - self.score(emissions, tags, lengths)

    def decode(self, emissions: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """The best tag sequence of each `[batch, time]` (Viterbi); padding steps get the last valid step's tag."""
        batch, time, _ = emissions.shape
        best = self.start + emissions[:, 0]
        back = []
        for t in range(1, time):
            scores, previous = (best.unsqueeze(2) + self.transitions).max(dim=1)  # [batch, tags] each
            running = (t < lengths).unsqueeze(1)
            best = torch.where(running, scores + emissions[:, t], best)
            # Past the end, each tag points to itself: the walk back passes through unchanged.
            back.append(torch.where(running, previous, torch.arange(best.shape[1], device=best.device)))
        tags = torch.empty(batch, time, dtype=torch.long, device=emissions.device)
        tags[:, -1] = (best + self.end).argmax(1)
        for t in range(time - 1, 0, -1):
            tags[:, t - 1] = back[t - 1].gather(1, tags[:, t].unsqueeze(1)).squeeze(1)
        return tags
