"""The text model's TF-IDF + logistic regression (project/nets/ngram_bag.py): the baseline it starts from."""

import random

import pytest
import torch
from runkit import ConfigError
from sklearn.feature_extraction.text import TfidfVectorizer
from sklearn.linear_model import LogisticRegression
from sklearn.pipeline import make_pipeline

from project.data.text.vocab import Vocabulary, tokenize
from project.nets.lstm import LSTMClassifier, LSTMTagger
from project.nets.ngram_bag import C_GRID, FOLDS, NgramBag, occurrences, pad
from tests.real_data import FILLER, NEGATIVE, POSITIVE

TOPICS = {"sport": "match goal team coach season", "money": "bank market price shares trade"}


def corpus(count: int, seed: int = 0) -> tuple[list[str], list[str]]:
    """Texts of filler words, some repeated, with one to three topic words and a sentiment word that agrees."""
    rng = random.Random(seed)
    texts, labels = [], []
    for _ in range(count):
        label = rng.choice(list(TOPICS))
        words = [rng.choice(FILLER) for _ in range(rng.randint(3, 40))]
        for _ in range(rng.randint(1, 3)):
            words.insert(rng.randint(0, len(words)), rng.choice(TOPICS[label].split()))
        words.append(rng.choice(POSITIVE if label == "sport" else NEGATIVE))
        texts.append(" ".join(words) + " !")
        labels.append(label)
    return texts, labels


def encoded(texts: list[str], vocabulary: Vocabulary) -> list[torch.Tensor]:
    return [torch.tensor(vocabulary.encode(tokenize(t, "words"))) for t in texts]


def test_it_is_scikit_learns_tfidf_and_logistic_regression():
    torch.manual_seed(0)
    texts, labels = corpus(300)
    test_texts, _ = corpus(100, seed=1)
    vocabulary = Vocabulary.build(tokenize(t, "words") for t in texts)
    classes = sorted(set(labels))
    bag = NgramBag(len(vocabulary), len(classes), c=1.0)
    bag.fit(encoded(texts, vocabulary), torch.tensor([classes.index(y) for y in labels]))
    ours = torch.softmax(bag.eval()(*pad(encoded(test_texts, vocabulary))), 1)[:, 1]  # eval: the whole bag
    words = lambda text: tokenize(text, "words")  # noqa: E731
    sklearn = make_pipeline(
        TfidfVectorizer(tokenizer=words, token_pattern=None, lowercase=False, ngram_range=(1, 2), sublinear_tf=True),
        LogisticRegression(max_iter=1000, tol=1e-8),
    ).fit(texts, labels)
    theirs = torch.tensor(sklearn.predict_proba(test_texts)[:, 1], dtype=ours.dtype)
    assert (ours - theirs).abs().max() < 2e-3, (ours - theirs).abs().max()


def test_a_text_scores_the_same_batched_and_alone():
    torch.manual_seed(0)
    texts, labels = corpus(200)
    vocabulary = Vocabulary.build(tokenize(t, "words") for t in texts)
    bag = NgramBag(len(vocabulary), 2, c=1.0)
    bag.fit(encoded(texts, vocabulary), torch.tensor([y == "money" for y in labels], dtype=torch.int64))
    sample = encoded(texts[:16], vocabulary)
    batched = bag(*pad(sample))
    alone = torch.cat([bag(*pad([x])) for x in sample])
    torch.testing.assert_close(batched, alone)


def test_occurrences_counts_each_id_within_its_row():
    ids = torch.tensor([[5, 3, 5, 5, -1], [2, 2, 7, -1, -1]])
    assert occurrences(ids).tolist() == [[3, 1, 3, 3, 1], [2, 2, 1, 2, 2]]


def test_the_untrained_model_is_the_fitted_baseline_and_training_leaves_it_fixed():
    torch.manual_seed(0)
    texts, labels = corpus(200)
    vocabulary = Vocabulary.build(tokenize(t, "words") for t in texts)
    net = LSTMClassifier(2, vocab_size=len(vocabulary), ngrams=2, embedding_dim=8, hidden_size=8)
    targets = torch.tensor([y == "money" for y in labels], dtype=torch.int64)
    train, val = encoded(texts[:150], vocabulary), encoded(texts[150:], vocabulary)
    fitted = net.fit_bag(train, targets[:150], val, targets[150:])
    assert fitted["kept"] and net.bag.c is None  # chosen on the validation texts
    tokens, lengths = pad(encoded(texts[:32], vocabulary))
    torch.testing.assert_close(net(tokens, lengths), net.bag(tokens, lengths))
    assert not any(p is net.bag.weight for p in net.parameters())  # buffers: no optimizer moves them
    before = net.bag.weight.clone()
    optimizer = torch.optim.Adam(net.parameters(), lr=0.1)
    for _ in range(3):
        optimizer.zero_grad()
        torch.nn.functional.cross_entropy(net(tokens, lengths), targets[:32]).backward()
        optimizer.step()
    assert torch.equal(net.bag.weight, before)
    assert not torch.allclose(net(tokens, lengths), net.bag(tokens, lengths))  # the LSTM learned on top
    assert {"bag.weight", "bag.idf", "bag.bias", "bag.fitted"} <= set(net.state_dict())  # checkpoints carry it


def test_c_is_the_one_of_the_grid_that_validates_best():
    texts, labels = corpus(400)
    vocabulary = Vocabulary.build(tokenize(t, "words") for t in texts[:200])
    targets = torch.tensor([y == "money" for y in labels], dtype=torch.int64)
    train, val = encoded(texts[:200], vocabulary), encoded(texts[200:], vocabulary)
    chosen = NgramBag(len(vocabulary), 2).fit(train, targets[:200], val, targets[200:])
    for c in C_GRID:
        fixed = NgramBag(len(vocabulary), 2, c=c)
        fixed.fit(train, targets[:200])
        assert fixed.evaluate(val, targets[200:])[0] <= chosen["val_acc"] + 1e-6, c
    assert chosen["kept"]
    with pytest.raises(ValueError, match="validation"):
        NgramBag(len(vocabulary), 2).fit(train, targets[:200])


def test_words_that_do_not_tell_the_classes_apart_switch_the_bag_off():
    from project.data.text.synthetic import generate_texts  # the label in the words' order, not in which words

    rows = generate_texts(600, 20, 200, seed=0)
    vocabulary = Vocabulary.build(tokenize(t, "words") for t, _ in rows[:400])
    classes = sorted({y for _, y in rows})
    texts, targets = encoded([t for t, _ in rows], vocabulary), torch.tensor([classes.index(y) for _, y in rows])
    net = LSTMClassifier(len(classes), vocab_size=len(vocabulary), ngrams=2, embedding_dim=8, hidden_size=8)
    head = net.head[-1].weight.clone()
    fitted = net.fit_bag(texts[:400], targets[:400], texts[400:], targets[400:])
    bag = net.bag
    assert not fitted["kept"] and bag.weight.abs().sum() == 0 and bag.bias.abs().sum() == 0
    assert bool(bag.fitted)  # a resumed run does not fit it again
    assert torch.equal(net.head[-1].weight, head) and head.abs().sum() > 0  # the LSTM starts as it would without


def test_a_gain_within_chance_on_few_validation_texts_switches_the_bag_off():
    """The template's test setting, 300 generated texts: C chosen on 60 texts finds a little luck there."""
    from project.data.text.synthetic import generate_texts

    rows = generate_texts(300, 20, 200, seed=0)
    vocabulary = Vocabulary.build(tokenize(t, "words") for t, _ in rows[:240])
    classes = sorted({y for _, y in rows})
    texts, targets = encoded([t for t, _ in rows], vocabulary), torch.tensor([classes.index(y) for _, y in rows])
    bag = NgramBag(len(vocabulary), len(classes))
    assert not bag.fit(texts[:240], targets[:240], texts[240:], targets[240:])["kept"]


def test_ngrams_is_refused_where_there_are_no_words():
    with pytest.raises(ConfigError, match="token ids"):
        LSTMClassifier(2, num_channels=3, ngrams=2)
    with pytest.raises(ConfigError, match="each token"):
        LSTMTagger(5, vocab_size=100, ngrams=2)


def test_in_training_each_text_is_scored_by_a_bag_that_did_not_see_it():
    """Word pairs nearly name each text: the whole bag is right on its own training texts whatever it learned, the
    folds' bags only as often as on new texts, so the LSTM trains on honest scores."""
    from project.data.text.synthetic import generate_texts

    rows = generate_texts(1500, 5, 200, seed=0)
    vocabulary = Vocabulary.build(tokenize(t, "words") for t, _ in rows[:1200])
    classes = sorted({y for _, y in rows})
    texts, targets = encoded([t for t, _ in rows], vocabulary), torch.tensor([classes.index(y) for _, y in rows])
    net = LSTMClassifier(len(classes), vocab_size=len(vocabulary), ngrams=2, embedding_dim=8, hidden_size=8)
    bag = net.bag
    bag.c = 1.0  # kept without validation texts: the folds are fitted
    bag.fit(texts[:1200], targets[:1200])
    new_texts = bag.evaluate(texts[1200:], targets[1200:])[0]
    train = pad(texts[:1200])
    whole = (bag.eval()(*train).argmax(1) == targets[:1200]).float().mean()
    held_out = (bag.train()(*train).argmax(1) == targets[:1200]).float().mean()
    assert whole > 0.9 and abs(held_out - new_texts) < 0.08, (whole, held_out, new_texts)
    assert bag.fold_weight.shape == (FOLDS, *bag.weight.shape)
    assert "bag.fold_weight" not in net.state_dict()  # FOLDS times the bag: fitted again on resuming instead
    resumed = LSTMClassifier(len(classes), vocab_size=len(vocabulary), ngrams=2, embedding_dim=8, hidden_size=8)
    resumed.load_state_dict(net.state_dict())
    resumed.bag.c = 1.0
    assert resumed.fit_bag(texts[:1200], targets[:1200], texts[1200:], targets[1200:]) is None
    assert torch.equal(resumed.bag.fold_weight, bag.fold_weight)


def test_a_word_only_held_out_texts_have_weighs_nothing_in_their_fold_s_bag():
    """Each text carries a word of its own, as names and numbers do in real texts: the bag that scores it in
    training must not have learned that word from it."""
    texts, labels = corpus(300)
    texts = [f"{text} id{i}" for i, text in enumerate(texts)]
    vocabulary = Vocabulary.build(tokenize(t, "words") for t in texts)
    bag = NgramBag(len(vocabulary), 2, ngrams=1, c=10.0)
    ids = encoded(texts, vocabulary)
    bag.fit(ids, torch.tensor([y == "money" for y in labels], dtype=torch.int64))
    own = torch.tensor([vocabulary.index[f"id{i}"] for i in range(len(texts))])
    fold = bag.fold(*pad(ids))
    assert bag.weight[own].abs().min() > 0  # the whole bag learned each text's own word
    assert bag.fold_weight[fold, own].abs().max() == 0  # the bag that scores it in training did not
