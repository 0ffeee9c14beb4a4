"""TF-IDF + logistic regression, the baseline every practitioner runs first on text, as a layer: fitted once on the
training split before the first epoch, then fixed; an LSTM's scores are added to its scores and learn what word
counts miss, as the forecaster starts at the seasonal naive and learns the rest.

Stacking, as a practitioner does it by hand: on its own training texts the bag is surer than it will ever be on new
ones (word pairs nearly name each text), which would leave the LSTM next to nothing to learn there. So in training
each text is scored by a bag fitted without it (one of `FOLDS` fits, each leaving a fifth of the texts out, the
fifth chosen from the text's words); in evaluation, prediction and export, by the bag fitted on them all."""

import warnings
from typing import Any

import torch
from torch import nn

from project.nets.sequence_pooling import length_mask

PAIR_PRIME = 1_000_003  # spreads (first, second) id pairs over the buckets
C_GRID = (0.3, 1.0, 3.0, 10.0, 30.0)  # scikit-learn's default C is 1: the grid spans a decade and a half each way
FOLDS = 5  # the usual count for stacking: each fold's bag sees four fifths of the training texts
PAD_ID, UNK_ID = 0, 1  # project/data/text/vocab.py: never a feature, as a word outside the vocabulary is not


class NgramBag(nn.Module):
    """Token ids `[batch, time]` and lengths `[batch]` → scores `[batch, num_outputs]` of a logistic regression over
    the text's TF-IDF vector of words and word pairs: scikit-learn's `TfidfVectorizer(ngram_range=(1, ngrams),
    sublinear_tf=True)` (term frequency `1 + log count`, smooth idf, L2 norm) then `LogisticRegression(C=c)`.

    The weights and idf are buffers, not parameters: `fit` solves for them (L-BFGS on the convex loss, full batch),
    the optimizer never moves them, and every checkpoint carries them, so `predict` and `serve` need nothing else.
    Word pairs are hashed into `buckets` rows rather than counted into a vocabulary: nothing to build beside the
    word vocabulary, at the cost of rare collisions (2^18 buckets against ~200,000 distinct pairs in 2,000 news
    articles). A feature never seen in training (idf 0) counts nowhere, as the vectorizer drops it. Only the valid
    steps count, so a text scores the same batched and alone; plain tensor operations, which ONNX export traces.
    """

    def __init__(
        self, vocab_size: int, num_outputs: int, ngrams: int = 2, buckets: int = 2**18, c: float | None = None
    ) -> None:
        super().__init__()
        if ngrams not in (1, 2):
            raise ValueError(f"ngrams is 1 (words) or 2 (words and word pairs), got {ngrams}")
        self.vocab_size, self.buckets = vocab_size, buckets if ngrams == 2 else 0
        self.c = c  # scikit-learn's C, the inverse of the penalty; None: chosen on the validation texts
        features = self.vocab_size + self.buckets
        self.register_buffer("weight", torch.zeros(features, num_outputs))
        self.register_buffer("bias", torch.zeros(num_outputs))
        self.register_buffer("idf", torch.zeros(features))
        self.register_buffer("fitted", torch.tensor(False))
        self.register_buffer("chosen_c", torch.tensor(0.0))  # 0: switched off (below)
        # Each fold's bag, for training only: not in checkpoints (FOLDS times the bag), fitted again on resuming.
        self.register_buffer("fold_weight", None, persistent=False)
        self.register_buffer("fold_bias", None, persistent=False)

    def ids(self, tokens: torch.Tensor, lengths: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Feature ids `[batch, steps]` (words, then pairs offset by `vocab_size`) and where they are valid."""
        valid = length_mask(lengths.to(tokens.device), tokens.shape[1])
        if not self.buckets or tokens.shape[1] < 2:
            return tokens, valid
        pairs = self.vocab_size + (tokens[:, :-1] * PAIR_PRIME + tokens[:, 1:]) % self.buckets
        return torch.cat([tokens, pairs], 1), torch.cat([valid, valid[:, 1:]], 1)  # a pair ends at a valid step

    def fold(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        """Which fold `[batch]` each text falls in: a hash of its words, so texts with the same words share one."""
        valid = length_mask(lengths.to(tokens.device), tokens.shape[1])
        return (tokens * valid).sum(1).mul(PAIR_PRIME).add(lengths.to(tokens.device)) % FOLDS

    def forward(self, tokens: torch.Tensor, lengths: torch.Tensor) -> torch.Tensor:
        if self.training and self.fold_weight is not None:  # each text scored by the bag that did not see it
            return self.score(tokens, lengths, self.fold(tokens, lengths))
        return self.score(tokens, lengths)

    def score(self, tokens: torch.Tensor, lengths: torch.Tensor, fold: torch.Tensor | None = None) -> torch.Tensor:
        """The whole bag's scores, or each text's fold's (`fold` `[batch]`)."""
        ids, valid = self.ids(tokens, lengths)
        count = occurrences(torch.where(valid, ids, -1)).to(self.idf.dtype)  # of each step's feature in its text
        value = (1 + count.log()) * self.idf[ids] * valid  # the feature's TF-IDF, at each of its occurrences
        norm = (value.square() / count).sum(1, keepdim=True).sqrt().clamp_min(1e-12)  # each feature once
        share = value / count / norm  # summed over a feature's occurrences: its value in the L2-normalised vector
        if fold is None:
            return (share.unsqueeze(-1) * self.weight[ids]).sum(1) + self.bias
        return (share.unsqueeze(-1) * self.fold_weight[fold.unsqueeze(1), ids]).sum(1) + self.fold_bias[fold]

    @torch.no_grad()
    def fit(
        self,
        texts: list[torch.Tensor],
        labels: torch.Tensor,
        val_texts: list[torch.Tensor] | None = None,
        val_labels: torch.Tensor | None = None,
        batch_size: int = 256,
    ) -> dict[str, Any]:
        """Solve for the idf, weights and bias on the training texts (token ids each) and their labels. Loss: mean
        cross-entropy plus `|weight|² / (2 C n)`, scikit-learn's objective over n. Without a fixed `c`, C is the one
        of `C_GRID` with the best validation accuracy (the smallest of the ties), as `LogisticRegressionCV` would
        choose it. Returns C, the training and validation accuracies, and whether the bag was kept (below)."""
        x = self._tfidf_matrix(texts, batch_size)
        grid = [self.c] if self.c is not None else C_GRID
        if len(grid) > 1 and val_texts is None:
            raise ValueError("choosing C needs validation texts; or give c")
        best: dict[str, Any] = {}
        weight = None
        for c in grid:  # each fit starts from the last: the path of solutions is smooth in C
            weight, bias = logistic_regression(x, labels, self.weight.shape[1], c, weight)
            self.weight.copy_(weight)
            self.bias.copy_(bias)
            predicted = (torch.sparse.mm(x, weight) + bias).argmax(1)
            scores = {"c": c, "train_acc": float((predicted == labels).float().mean())}
            if val_texts is not None:
                scores["val_acc"], scores["val_loss"] = self.evaluate(val_texts, val_labels, batch_size)
            if not best or scores.get("val_acc", 0) > best.get("val_acc", 0):
                best = {**scores, "weight": weight, "bias": bias}
        self.weight.copy_(best.pop("weight"))
        self.bias.copy_(best.pop("bias"))
        best["kept"] = True
        if val_texts is not None:
            # Words that do not tell the classes apart (the label in their order alone) give confident wrong scores:
            # the bag stays only where it beats the class shares on validation by more than chance would, its
            # cross-entropy lower per text by over two standard errors (C was chosen on these texts: a small
            # gain there is the choice's luck), and is switched off elsewhere.
            gain = self.gain_over_prior(val_texts, val_labels, labels, batch_size)
            best["val_gain"] = float(gain.mean())
            if not float(gain.mean()) > 2 * float(gain.std()) / len(gain) ** 0.5:
                self.weight.zero_()
                self.bias.zero_()
                best["kept"] = False
        if best["kept"]:
            self.chosen_c.fill_(best["c"])
            self.fit_folds(texts, labels, batch_size, x)
        self.fitted.fill_(True)
        return best

    @torch.no_grad()
    def fit_folds(
        self, texts: list[torch.Tensor], labels: torch.Tensor, batch_size: int = 256, x: torch.Tensor | None = None
    ) -> None:
        """The bags that score the training texts in training: each fitted at the chosen C on the texts outside its
        fold, from the whole bag's weights (the idf stays the whole training split's: it sees no label)."""
        if x is None:
            x = self._tfidf_matrix(texts, batch_size, set_idf=False)
        fold = torch.cat([self.fold(*pad(texts[i : i + batch_size])) for i in range(0, len(texts), batch_size)])
        weights, biases = [], []
        for k in range(FOLDS):
            rows = (fold != k).nonzero().squeeze(1)
            weight, bias = logistic_regression(
                x.index_select(0, rows), labels[rows], self.weight.shape[1], float(self.chosen_c), self.weight
            )
            weights.append(weight)
            biases.append(bias)
        self.fold_weight, self.fold_bias = torch.stack(weights), torch.stack(biases)

    def gain_over_prior(
        self, texts: list[torch.Tensor], labels: torch.Tensor, train_labels: torch.Tensor, batch_size: int = 256
    ) -> torch.Tensor:
        """Per text, the class shares' cross-entropy (training counts, add-one) less the bag's."""
        prior = torch.bincount(train_labels, minlength=self.weight.shape[1]).float().add(1).log()
        scores = self.scores(texts, batch_size)
        ce = nn.functional.cross_entropy
        return ce(prior.expand(len(labels), -1), labels, reduction="none") - ce(scores, labels, reduction="none")

    def scores(self, texts: list[torch.Tensor], batch_size: int = 256) -> torch.Tensor:
        """The whole bag's scores (in training mode too), `batch_size` texts at a time."""
        batches = (pad(texts[i : i + batch_size]) for i in range(0, len(texts), batch_size))
        return torch.cat([self.score(*batch) for batch in batches])

    def evaluate(self, texts: list[torch.Tensor], labels: torch.Tensor, batch_size: int = 256) -> tuple[float, float]:
        """Accuracy and cross-entropy on `texts`."""
        scores = self.scores(texts, batch_size)
        return float((scores.argmax(1) == labels).float().mean()), float(nn.functional.cross_entropy(scores, labels))

    def _tfidf_matrix(self, texts: list[torch.Tensor], batch_size: int, set_idf: bool = True) -> torch.Tensor:
        """The training texts' TF-IDF rows `[texts, features]`, sparse; sets `idf` from them (else reads it)."""
        n, size = len(texts), len(self.idf)
        keys = []  # text * size + feature, one per occurrence
        for start in range(0, n, batch_size):
            ids, valid = self.ids(*pad(texts[start : start + batch_size]))
            keys.append(((torch.arange(len(ids)).unsqueeze(1) + start) * size + ids)[valid])
        unique, count = torch.cat(keys).unique(return_counts=True)
        rows, cols = unique // size, unique % size
        if set_idf:
            df = torch.bincount(cols, minlength=size).float()
            idf = torch.log((1 + n) / (1 + df)) + 1
            idf[(df == 0) | (torch.arange(size) == PAD_ID) | (torch.arange(size) == UNK_ID)] = 0
            self.idf.copy_(idf)
        idf = self.idf
        value = (1 + count.float().log()) * idf[cols]
        norm = torch.zeros(n, dtype=value.dtype).index_add_(0, rows, value.square()).sqrt().clamp_min(1e-12)
        return torch.sparse_coo_tensor(
            torch.stack([rows, cols]), value / norm[rows], (n, size), is_coalesced=True, check_invariants=False
        )  # unique() sorted the keys: row-major, no repeats


def occurrences(ids: torch.Tensor) -> torch.Tensor:
    """How often each entry of `ids` `[batch, steps]` occurs in its row, by sorting: memory linear in the steps, where
    comparing every step with every other would be quadratic (a 1,000-word article)."""
    ordered, order = ids.sort(1)
    starts = torch.ones_like(ordered, dtype=torch.bool)
    starts[:, 1:] = ordered[:, 1:] != ordered[:, :-1]
    run = starts.cumsum(1) - 1  # which run of equal ids each sorted entry belongs to
    per_run = torch.zeros_like(run).scatter_add_(1, run, torch.ones_like(run))
    return torch.empty_like(run).scatter_(1, order, per_run.gather(1, run))


def pad(texts: list[torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
    lengths = torch.tensor([len(t) for t in texts])
    return nn.utils.rnn.pad_sequence(texts, batch_first=True), lengths


def logistic_regression(
    x: torch.Tensor, labels: torch.Tensor, classes: int, c: float, start: torch.Tensor | None = None
) -> tuple[torch.Tensor, torch.Tensor]:
    """Multinomial logistic regression on sparse `x` `[n, features]`: weights `[features, classes]` and bias, by
    L-BFGS from `start` (else zeros); the bias is not penalised, as in scikit-learn.

    The gradient is written out (`xᵀ (softmax − onehot) / n`, plus the penalty's) rather than left to autograd, and
    only the features that occur in `x` are solved for (the rest have no gradient and the penalty holds them at zero):
    on 4,000 texts that is several times faster, which the folds (above) multiply."""
    n = x.shape[0]
    x = x.coalesce()
    used, columns = x.indices()[1].unique(return_inverse=True)
    rows = torch.sparse_coo_tensor(
        torch.stack([x.indices()[0], columns]), x.values(), (n, len(used)), check_invariants=False
    )
    with warnings.catch_warnings():  # CSR is "beta"; its product with a dense matrix is what this needs
        warnings.simplefilter("ignore", UserWarning)
        forward, backward = rows.to_sparse_csr(), rows.t().to_sparse_csr()
    initial = start if start is not None else torch.zeros(x.shape[1], classes, dtype=x.dtype)
    weight, bias = initial[used].clone(), torch.zeros(classes, dtype=x.dtype)
    onehot = nn.functional.one_hot(labels, classes).to(x.dtype)
    # Two classes: scikit-learn fits one weight vector, w; softmax's two rows settle at ±w/2, where the same penalty
    # would weigh half as much: doubled, the two are the same model.
    penalty = (2 if classes == 2 else 1) / (2 * c * n)
    optimizer = torch.optim.LBFGS([weight, bias], lr=1, max_iter=300, tolerance_grad=1e-5,
                                  tolerance_change=1e-9, history_size=20, line_search_fn="strong_wolfe")  # fmt: skip

    def loss() -> torch.Tensor:
        logp = torch.log_softmax(forward @ weight + bias, 1)
        residual = (logp.exp() - onehot) / n
        weight.grad = backward @ residual + 2 * penalty * weight
        bias.grad = residual.sum(0)
        return -(logp * onehot).sum() / n + penalty * weight.square().sum()

    with torch.no_grad():
        optimizer.step(loss)
    solved = torch.zeros_like(initial)  # a feature absent from `x` has no weight: a fold's bag never saw it
    solved[used] = weight
    return solved, bias
