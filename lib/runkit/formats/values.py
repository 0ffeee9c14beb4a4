"""Values read from the user's files, each refused with the file, the line and the fix."""

import math
from pathlib import Path

from runkit import DataError


def read_number(text: str | None, path: Path, line: int, field: str = "", empty: str = "") -> float:
    """`text` as a finite float, or a DataError naming `path`, `line` and the `field` (if the file has names);
    `empty` is what to say of an empty cell (by default it is not a number)."""
    value = (text or "").strip()
    where = f"{path}, line {line}: " + (f"{field} " if field else "")
    if not value and empty:
        raise DataError(f"{where}is empty; {empty}")
    try:
        number = float(value)
    except ValueError:
        raise DataError(f"{where}{value!r} is not a number") from None
    if not math.isfinite(number):
        raise DataError(f"{where}{value!r} is not a finite number; give a finite one")
    return number
