"""The tagging task: spans scored as CoNLL's evaluation does (checked against seqeval), the CRF against enumerating
every tag sequence, padding never scored."""

import itertools

import pytest
import torch
from runkit.tasks import IGNORE, Tagging
from runkit.tasks.crf import CRF
from runkit.tasks.spans import SpanCounts, spans
from seqeval.metrics import f1_score, precision_score, recall_score
from seqeval.metrics.sequence_labeling import get_entities

# Hand-made sequences that cover conlleval's edge cases: I- after O, a type change inside a span, E- and S- tags.
CASES = [
    ["B-PER", "I-PER", "O", "B-LOC"],
    ["I-PER", "I-PER", "O", "I-LOC", "B-LOC", "I-LOC"],
    ["B-PER", "I-LOC", "I-LOC", "O", "B-ORG", "B-ORG"],
    ["O", "O", "I-MISC"],
    ["S-PER", "B-LOC", "E-LOC", "B-ORG", "I-ORG", "E-ORG", "O", "E-PER"],
    ["B-PER", "E-PER", "I-PER", "S-LOC", "I-LOC"],
]
GUESSES = [
    ["B-PER", "I-PER", "O", "O"],
    ["B-PER", "I-PER", "O", "B-LOC", "B-LOC", "I-LOC"],
    ["B-PER", "B-LOC", "I-LOC", "O", "B-ORG", "I-ORG"],
    ["O", "O", "B-MISC"],
    ["S-PER", "B-LOC", "E-LOC", "B-ORG", "E-ORG", "O", "O", "S-PER"],
    ["B-PER", "E-PER", "O", "S-LOC", "I-LOC"],
]


@pytest.mark.parametrize("tags", CASES + GUESSES)
def test_spans_are_seqevals(tags):
    assert sorted(spans(tags)) == sorted(get_entities(tags))


def test_span_scores_equal_seqevals_over_batches_with_padding():
    names = sorted({t for s in CASES + GUESSES for t in s})
    ids = {t: i for i, t in enumerate(names)}
    metrics = {kind: SpanCounts(names, kind) for kind in ("f1", "precision", "recall")}
    for first in (0, 3):  # two batches, each padded to its longest
        batch = slice(first, first + 3)
        width = max(map(len, CASES[batch]))
        target = torch.tensor([[ids[t] for t in s] + [IGNORE] * (width - len(s)) for s in CASES[batch]])
        # The guesses' padding holds real tag ids: it must not count.
        guess = torch.tensor([[ids[t] for t in s] + [ids["B-PER"]] * (width - len(s)) for s in GUESSES[batch]])
        for metric in metrics.values():
            metric.update(guess, target)
    assert metrics["f1"].compute().item() == pytest.approx(f1_score(CASES, GUESSES))
    assert metrics["precision"].compute().item() == pytest.approx(precision_score(CASES, GUESSES))
    assert metrics["recall"].compute().item() == pytest.approx(recall_score(CASES, GUESSES))


def brute_force(crf: CRF, emissions: torch.Tensor) -> tuple[torch.Tensor, tuple[int, ...]]:
    """log Σ exp(score) and the best sequence of one unpadded sequence `[time, tags]`, by listing every sequence."""
    time, tags = emissions.shape
    scored = {}
    for path in itertools.product(range(tags), repeat=time):
        score = crf.start[path[0]] + crf.end[path[-1]] + sum(emissions[t, path[t]] for t in range(time))
        scored[path] = score + sum(crf.transitions[a, b] for a, b in itertools.pairwise(path))
    return torch.logsumexp(torch.stack(list(scored.values())), 0), max(scored, key=lambda p: scored[p])


def test_the_crf_likelihood_and_viterbi_equal_listing_every_sequence():
    torch.manual_seed(0)
    crf = CRF(3)
    with torch.no_grad():
        for parameter in crf.parameters():
            parameter.normal_()
    lengths = torch.tensor([4, 1, 3])
    emissions = torch.randn(3, 4, 3)
    tags = torch.randint(0, 3, (3, 4))
    with torch.no_grad():
        partition, score, best = (
            crf.log_partition(emissions, lengths),
            crf.score(emissions, tags, lengths),
            crf.decode(emissions, lengths),
        )
        for i, n in enumerate(lengths.tolist()):
            expected, path = brute_force(crf, emissions[i, :n])
            assert partition[i].item() == pytest.approx(expected.item(), abs=1e-5)
            assert tuple(best[i, :n].tolist()) == path
            own = crf.start[tags[i, 0]] + crf.end[tags[i, n - 1]] + sum(emissions[i, t, tags[i, t]] for t in range(n))
            own = own + sum(crf.transitions[tags[i, t], tags[i, t + 1]] for t in range(n - 1))
            assert score[i].item() == pytest.approx(own.item(), abs=1e-5)


@pytest.mark.parametrize("crf", [False, True])
def test_the_padding_is_never_scored(crf):
    task = Tagging(crf=crf, tag_names=["B-PER", "I-PER", "O"])
    task.bind(3)
    torch.manual_seed(0)
    output = torch.randn(2, 5, 3, requires_grad=True)
    target = torch.tensor([[0, 1, 2, IGNORE, IGNORE], [2, 0, 1, 2, 0]])
    loss = task.loss(output, target)
    loss.backward()
    assert output.grad[0, 3:].abs().max() == 0  # no gradient reaches a padding step
    other = output.detach().clone()
    other[0, 3:] = 50 * torch.randn(2, 3)  # other scores at the padding: the same loss and the same tags
    assert task.loss(other, target).item() == pytest.approx(loss.item(), abs=1e-6)
    assert torch.equal(task.scored(other, target)[0, :3], task.scored(output.detach(), target)[0, :3])
    metrics = task.metrics()
    metrics.update(task.scored(other, target), target)
    same = task.metrics()
    same.update(task.scored(output.detach(), target), target)
    assert {k: v.item() for k, v in metrics.compute().items()} == {k: v.item() for k, v in same.compute().items()}
