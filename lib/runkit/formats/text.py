"""Read labelled texts from CSV, TSV or JSONL, and plain lines for prediction.

Every problem names the file and the line. Nothing is dropped without a warning that counts it.
"""

import csv
import io
import json
import warnings
from dataclasses import dataclass
from pathlib import Path

from runkit import DataError, MissingDataError

FORMATS = {".csv": "csv", ".tsv": "tsv", ".jsonl": "jsonl", ".txt": "lines"}


@dataclass(frozen=True)
class TextRow:
    text: str
    label: str | None
    line: int  # 1-based line of the file where the row starts, for error messages


def read_text_file(path: str | Path, text_field: str = "text", label_field: str | None = "label") -> list[TextRow]:
    """Rows of a `.csv`, `.tsv` or `.jsonl` file (header or keys name the fields), or of a `.txt`, one text a line.

    Rows whose text is empty or only whitespace are skipped with one warning that counts them:
    they have no tokens, and a sequence of length 0 cannot be packed.
    """
    path = Path(path)
    kind = FORMATS.get(path.suffix.lower())
    if kind is None:
        raise DataError(f"{path}: unknown format {path.suffix!r}; use one of {', '.join(FORMATS)}")
    content = _read_utf8(path)
    if not content.strip():
        raise DataError(f"{path}: the file is empty")
    if kind == "lines":
        rows = [TextRow(text, None, i) for i, text in enumerate(content.splitlines(), start=1)]
    elif kind == "jsonl":
        rows = _read_jsonl(path, content, text_field, label_field)
    else:
        rows = _read_delimited(path, content, "," if kind == "csv" else "\t", text_field, label_field)
    empty = [row.line for row in rows if not row.text.strip()]
    if empty:
        warnings.warn(
            f"{path}: skipped {len(empty)} row(s) with an empty text, at line(s) {_first(empty)}", stacklevel=2
        )
    kept = [row for row in rows if row.text.strip()]
    if not kept and rows:
        raise DataError(
            f"{path}: every text of column {text_field!r} is empty ({len(rows)} rows); if the texts are in another "
            "column, name it with --data.text_field"
        )
    if not kept:
        raise DataError(f"{path}: no rows with a text (a header alone?)")
    return kept


def _read_utf8(path: Path) -> str:
    if not path.is_file():
        raise MissingDataError(f"{path}: no such file")
    data = path.read_bytes()
    try:
        return data.decode("utf-8-sig")  # -sig: tolerate the byte-order mark that some editors write
    except UnicodeDecodeError as err:
        line = data[: err.start].count(b"\n") + 1
        raise DataError(f"{path}, line {line}: not UTF-8 ({err.reason}); convert the file to UTF-8") from err


def _read_delimited(
    path: Path, content: str, delimiter: str, text_field: str, label_field: str | None
) -> list[TextRow]:
    reader = csv.reader(io.StringIO(content, newline=""), delimiter=delimiter)
    header = next(reader)
    columns = {name.strip(): i for i, name in enumerate(header)}
    wanted = [text_field] + ([label_field] if label_field else [])
    for field in wanted:
        if field not in columns:
            raise DataError(
                f"{path}, line 1: no column {field!r} (columns: {', '.join(columns)}); "
                f"set data.text_field / data.label_field"
            )
    rows = []
    start = reader.line_num + 1
    for values in reader:
        if values and len(values) != len(header):
            raise DataError(
                f"{path}, line {start}: {len(values)} fields where the header has {len(header)}; "
                "quote texts that contain the delimiter"
            )
        if values:
            label = values[columns[label_field]].strip() if label_field else None
            rows.append(TextRow(values[columns[text_field]], label, start))
        start = reader.line_num + 1
    return rows


def _read_jsonl(path: Path, content: str, text_field: str, label_field: str | None) -> list[TextRow]:
    rows = []
    for number, line in enumerate(content.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            record = json.loads(line)
        except json.JSONDecodeError as err:
            raise DataError(f"{path}, line {number}: not valid JSON ({err.msg})") from err
        if not isinstance(record, dict):
            raise DataError(f"{path}, line {number}: expected a JSON object, got {type(record).__name__}")
        for field in [text_field] + ([label_field] if label_field else []):
            if field not in record:
                raise DataError(f"{path}, line {number}: no key {field!r} (keys: {', '.join(record)})")
        label = str(record[label_field]).strip() if label_field else None
        rows.append(TextRow(str(record[text_field]), label, number))
    return rows


def _first(lines: list[int], n: int = 5) -> str:
    shown = ", ".join(map(str, lines[:n]))
    return shown + (f" and {len(lines) - n} more" if len(lines) > n else "")
