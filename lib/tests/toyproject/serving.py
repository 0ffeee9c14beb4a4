"""Points in requests: `{"points": [[x1, ..., xF], ...]}`."""

from typing import Any, ClassVar

import torch
from runkit import Reader, known_fields, rows_of_numbers


class PointsReader(Reader):
    fields: ClassVar[tuple[str, ...]] = ("points",)

    def samples(self, request: dict[str, Any]) -> list[Any]:
        rows = rows_of_numbers(known_fields(request, self.fields).get("points"), "points", self.datamodule.in_features)
        return [(torch.tensor(row), 0) for row in rows]
