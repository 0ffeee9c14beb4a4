"""Read tagged sentences from CoNLL-style files: a token per line, columns split by tabs (or else by spaces), a blank
line between sentences, `-DOCSTART-` lines skipped. Every problem names the file and the line."""

import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from runkit import DataError, forbidden_steps
from runkit.formats.text import _first, _read_utf8

BioErrors = Literal["repair", "refuse"]


@dataclass(frozen=True)
class TaggedSentence:
    tokens: list[str]
    tags: list[str] | None  # None: a file to predict
    lines: list[int]  # each token's line

    @property
    def line(self) -> int:
        return self.lines[0]


def read_conll(
    path: str | Path,
    token_column: int = 0,
    tag_column: int = -1,
    labelled: bool = True,
    bio_errors: BioErrors = "repair",
) -> list[TaggedSentence]:
    """The sentences of `path`. Every token line has as many columns as the first one. With BIO tags, an `I-X` that
    does not continue an `X` (after `O` or another type) is made `B-X` and counted (`repair`), or stops the read
    with its line (`refuse`)."""
    path = Path(path)
    sentences: list[TaggedSentence] = []
    tokens: list[str] = []
    tags: list[str] = []
    lines: list[int] = []
    width: tuple[int, int] | None = None  # (columns, line of the first token)

    def close() -> None:
        if tokens:
            sentences.append(TaggedSentence(list(tokens), list(tags) if labelled else None, list(lines)))
            tokens.clear(), tags.clear(), lines.clear()

    for number, raw in enumerate(_read_utf8(path).splitlines(), start=1):
        if not raw.strip():
            close()
            continue
        fields = raw.split("\t") if "\t" in raw else raw.split()
        if fields[0] == "-DOCSTART-":
            close()
            continue
        if width is None:
            width = (len(fields), number)
        if len(fields) != width[0]:
            raise DataError(
                f"{path}, line {number}: {len(fields)} columns where line {width[1]} has {width[0]}; a token per line, "
                "its columns split by tabs or spaces, a blank line between sentences"
            )
        for column in (token_column, *((tag_column,) if labelled else ())):
            if not -len(fields) <= column < len(fields):
                raise DataError(
                    f"{path}, line {number}: no column {column} (the line has {len(fields)}); set data.token_column "
                    "and data.tag_column"
                )
        tokens.append(fields[token_column])
        lines.append(number)
        if labelled:
            tags.append(fields[tag_column])
    close()
    if not sentences:
        raise DataError(f"{path}: no sentences (an empty file?)")
    if labelled:
        _check_bio(path, sentences, bio_errors)
    return sentences


def _check_bio(path: Path, sentences: list[TaggedSentence], bio_errors: BioErrors) -> None:
    """BIO's rule, where the tags are BIO (B- and I- prefixes, no E- or S-): repaired in place, or refused."""
    prefixes = {tag[:2] for s in sentences for tag in s.tags}
    if "I-" not in prefixes or {"E-", "S-"} & prefixes:
        return
    repaired = []
    for sentence in sentences:
        for step in forbidden_steps(sentence.tags):
            tag = sentence.tags[step]
            if bio_errors == "refuse":
                before = sentence.tags[step - 1] if step else "the sentence's start"
                raise DataError(
                    f"{path}, line {sentence.lines[step]}: tag {tag} after {before}, which BIO forbids (an I- "
                    "continues a B- or I- of its type); fix the file, or set --data.bio_errors repair (it becomes B-)"
                )
            sentence.tags[step] = "B-" + tag[2:]
            repaired.append(sentence.lines[step])
    if repaired:
        warnings.warn(
            f"{path}: {len(repaired)} I- tag(s) that continued no span of their type made B- (BIO's rule), at "
            f"line(s) {_first(repaired)}",
            stacklevel=3,
        )
