"""Sequences in requests: texts, numeric sequences and tokenised sentences, encoded by their DataModule's own
`encode` (its vocabulary and tokenizer, or its channels' scaling), then padded with their lengths."""

from typing import Any, ClassVar

import numpy as np
from runkit import (
    BadRequest,
    NumericSequence,
    Reader,
    TaggedSentence,
    TextRow,
    known_fields,
    one_or_many,
    rows_of_numbers,
    text_field,
)

SOURCE = "the request"  # where the DataModules' own messages say the data came from


class TextReader(Reader):
    """`{"text": "..."}` or `{"texts": ["...", ...]}`: tokenised, truncated and encoded as the training texts were."""

    fields: ClassVar[tuple[str, ...]] = ("text", "texts")

    def samples(self, request: dict[str, Any]) -> list[Any]:
        request = known_fields(request, self.fields)
        rows = [
            TextRow(text_field(value, field), None, i)
            for i, (field, value) in enumerate(one_or_many(request, *self.fields))
        ]
        encoded = self.datamodule.encode(rows, SOURCE)
        return [encoded[i] for i in range(len(encoded))]


class ValuesReader(Reader):
    """`{"sequence": [[c1, c2, ...], ...]}` or `{"sequences": [...]}`: a row of the channels' values per step
    (a bare number per step where there is one channel), in the channels' order and units; scaled as training was.
    `null` marks a missing value where the data fills them (`data.missing: mean`), and is refused otherwise."""

    fields: ClassVar[tuple[str, ...]] = ("sequence", "sequences")

    def samples(self, request: dict[str, Any]) -> list[Any]:
        request = known_fields(request, self.fields)
        width, fill = self.datamodule.num_channels, self.datamodule.missing == "mean"
        sequences = [
            NumericSequence(np.asarray(rows_of_numbers(value, field, width, fill), dtype=np.float32), None, i, field)
            for i, (field, value) in enumerate(one_or_many(request, *self.fields))
        ]
        encoded = self.datamodule.encode(sequences, SOURCE)
        return [encoded[i] for i in range(len(encoded))]


class TokensReader(Reader):
    """`{"tokens": ["Ada", "lives", "in", "Paris"]}` or `{"sentences": [[...], ...]}`: a sentence as its tokens
    (tokenised as the CoNLL files were); answered with a tag per token."""

    fields: ClassVar[tuple[str, ...]] = ("tokens", "sentences")
    rows_per_input: ClassVar[str] = "many"

    def samples(self, request: dict[str, Any]) -> list[Any]:
        request = known_fields(request, self.fields)
        sentences = []
        for i, (field, value) in enumerate(one_or_many(request, *self.fields)):
            if not isinstance(value, list) or not value:
                raise BadRequest(field, "a non-empty list of tokens (strings)")
            tokens = [text_field(token, f"{field}[{t}]") for t, token in enumerate(value)]
            sentences.append(TaggedSentence(tokens, None, [i] * len(tokens)))
        encoded = self.datamodule.encode(sentences, SOURCE)
        return [encoded[i] for i in range(len(encoded))]
