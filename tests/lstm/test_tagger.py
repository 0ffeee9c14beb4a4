"""The tagger (`--model lstm_tagger`): CoNLL files read and refused by line, a run that predicts a tag per token
from its checkpoint alone, the default finding the generated entities. (The tagging task, its spans and its CRF:
runkit's own tests.)"""

from pathlib import Path

import pytest
import torch
from runkit import DataError, TaggedSentence, read_conll

from project.cli import build, main
from project.data.text import TaggingDataModule
from tests.conftest import SMALL, TINY


def test_conll_files_are_read_and_bad_lines_named(tmp_path):
    path = tmp_path / "train.conll"
    path.write_text("-DOCSTART- -X- O O\n\nEU NNP B-ORG\nrejects VBZ O\n\nPeter NNP B-PER\nBlackburn NNP I-PER\n")
    sentences = read_conll(path)
    assert [s.tokens for s in sentences] == [["EU", "rejects"], ["Peter", "Blackburn"]]
    assert [s.tags for s in sentences] == [["B-ORG", "O"], ["B-PER", "I-PER"]]
    assert [s.lines for s in sentences] == [[3, 4], [6, 7]]
    assert [s.tags for s in read_conll(path, tag_column=1)] == [["NNP", "VBZ"], ["NNP", "NNP"]]

    path.write_text("EU\tNNP\tB-ORG\nrejects\tO\n")
    with pytest.raises(DataError, match=r"train.conll, line 2: 2 columns where line 1 has 3"):
        read_conll(path)
    path.write_text("EU B-ORG\nsaid O\nBrussels I-LOC\n\nthe O\nI-PER I-PER\n")
    with pytest.raises(DataError, match=r"line 3: tag I-LOC after O, which BIO forbids"):
        read_conll(path, bio_errors="refuse")
    with pytest.warns(
        UserWarning, match=r"2 I- tag\(s\) that continued no span of their type made B-.*lines?\(s\) 3, 6"
    ):
        repaired = read_conll(path)
    assert repaired[0].tags == ["B-ORG", "O", "B-LOC"] and repaired[1].tags == ["O", "B-PER"]
    assert path.read_text().count("I-LOC") == 1  # the file itself is not touched
    (tmp_path / "test.conll").write_text("Paris B-LOC\n")
    (tmp_path / "ok.conll").write_text("EU B-ORG\nsaid O\n")
    dm = TaggingDataModule(
        train_path=str(tmp_path / "ok.conll"), test_path=str(tmp_path / "test.conll"), val_fraction=0
    )
    with pytest.raises(DataError, match=r"test.conll, line 1: tag 'B-LOC' never occurs in the training data"):
        dm.setup("fit")


def test_a_tagger_run_predicts_a_tag_per_token_from_its_checkpoint_alone(tmp_path):
    from project.data.text.tagged_synthetic import generate_tagged

    train = tmp_path / "train.conll"
    train.write_text("\n\n".join("\n".join(f"{w}\t{t}" for w, t in zip(*s, strict=True)) for s in generate_tagged(200)))
    cli = build("lstm_tagger", *TINY, *SMALL["lstm_tagger"], f"--data.train_path={train}",
                "--model.task.init_args.crf=true", "--trainer.max_steps=6")  # fmt: skip
    cli.trainer.fit(cli.model, cli.datamodule)
    checkpoint = Path(cli.trainer.log_dir) / "checkpoints" / "model.ckpt"
    cli.trainer.save_checkpoint(checkpoint)
    assert cli.model.task.crf is not None and "task.crf.transitions" in torch.load(checkpoint)["state_dict"]
    train.unlink()

    (tmp_path / "new.conll").write_text("mr\nn3\nw4\n\nin\nloc2\ncorp\nnever-seen\n")
    predicted = main(["predict", "--model=lstm_tagger", f"--ckpt_path={checkpoint}", "--data.predict_path=new.conll"])
    lines = (Path(predicted.trainer.log_dir) / "predictions.tsv").read_text().splitlines()
    assert lines[0] == "line\ttag"
    rows = [line.split("\t") for line in lines[1:]]
    assert [r[0] for r in rows] == ["1", "2", "3", "5", "6", "7", "8"]
    model = cli.model.eval()
    for sentence, got in ((["mr", "n3", "w4"], rows[:3]), (["in", "loc2", "corp", "never-seen"], rows[3:])):
        tokens = cli.datamodule.encode([TaggedSentence(sentence, None, [1] * len(sentence))], "new").items[0][None]
        with torch.no_grad():
            tags = model.task.decode(model(tokens, torch.tensor([len(sentence)])), torch.tensor([len(sentence)]))
        assert [r[1] for r in got] == [cli.datamodule.class_names[t] for t in tags[0].tolist()]


@pytest.mark.slow
def test_the_default_tagger_finds_the_generated_entities():
    """The README's `--model lstm_tagger` as configured (the CRF on): span F1 ≥ 0.95 (docs/tasks.md)."""
    cli = build("lstm_tagger", *TINY)
    cli.trainer.fit(cli.model, cli.datamodule)
    assert cli.trainer.checkpoint_callback.best_model_score.item() >= 0.95
