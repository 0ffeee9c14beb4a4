"""What a request may hold, read field by field: a bad one is a `BadRequest` naming the field, answered 4xx.

JSON arrives parsed (FastAPI answers malformed JSON 422 before any of this runs); these helpers check its shape
and types, and say which field, and which item of a list, is wrong.
"""

import math
from collections.abc import Sequence
from typing import Any


class BadRequest(Exception):
    """A request this model cannot answer: `detail` names the field and says what it must be."""

    def __init__(self, field: str, message: str, status: int = 400) -> None:
        super().__init__(f"{field}: {message}")
        self.field, self.status = field, status

    @property
    def detail(self) -> str:
        return str(self)


def known_fields(request: Any, allowed: Sequence[str], prefix: str = "") -> dict[str, Any]:
    """`request` as a dict holding only `allowed` keys: a typo is named (after `prefix`: `graphs[2].`), not ignored."""
    if not isinstance(request, dict):
        raise BadRequest(prefix.rstrip(".") or "request", f"a JSON object with one of the fields {', '.join(allowed)}")
    unknown = [key for key in request if key not in allowed]
    if unknown:
        what = prefix.rstrip(".") or "this model's requests"
        raise BadRequest(f"{prefix}{unknown[0]}", f"not a field of {what}; it reads {', '.join(allowed)}")
    return request


def one_or_many(request: dict[str, Any], one: str, many: str) -> list[tuple[str, Any]]:
    """The inputs of a request, each with its field's name for errors: `request[one]` alone, or each item of
    `request[many]` (`many[0]`, `many[1]`...). Exactly one of the two fields."""
    if (one in request) == (many in request):
        raise BadRequest(many, f"give either {one!r} (one input) or {many!r} (a list of them)")
    if one in request:
        return [(one, request[one])]
    items = request[many]
    if not isinstance(items, list) or not items:
        raise BadRequest(many, "a non-empty list")
    return [(f"{many}[{i}]", item) for i, item in enumerate(items)]


def text_field(value: Any, field: str) -> str:
    """A string with something besides spaces."""
    if not isinstance(value, str):
        raise BadRequest(field, f"a string, got {type(value).__name__}")
    if not value.strip():
        raise BadRequest(field, "empty: give some text")
    return value


def number(value: Any, field: str, missing_allowed: bool = False) -> float:
    """A finite number; `null` where a missing value may be filled (NaN)."""
    if value is None and missing_allowed:
        return math.nan
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        allowed = " (or null where missing)" if missing_allowed else ""
        raise BadRequest(field, f"a number{allowed}, got {value!r}")
    return float(value)


def rows_of_numbers(value: Any, field: str, width: int, missing_allowed: bool = False) -> list[list[float]]:
    """A non-empty list of rows of `width` numbers each (a row per step); a bare number per step where
    `width` is 1."""
    if not isinstance(value, list) or not value:
        raise BadRequest(field, f"a non-empty list of steps, each a list of {width} numbers")
    rows = []
    for step, row in enumerate(value):
        if width == 1 and not isinstance(row, list):
            row = [row]
        if not isinstance(row, list) or len(row) != width:
            got = f"{len(row)} values" if isinstance(row, list) else repr(row)
            raise BadRequest(f"{field}[{step}]", f"{width} numbers (one per channel), got {got}")
        rows.append([number(v, f"{field}[{step}][{c}]", missing_allowed) for c, v in enumerate(row)])
    return rows
