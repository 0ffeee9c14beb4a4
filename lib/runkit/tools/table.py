"""The Markdown tables the tools print: the doctor's verdicts, the runs, a sweep's trials."""


def short_names(keys: list[str]) -> dict[str, str]:
    """The last part of each key (`lr`), or more of it where two keys would share a name."""
    names = {key: key.rsplit(".", 1)[-1] for key in keys}
    for key, name in names.items():
        if list(names.values()).count(name) > 1:
            names[key] = key
    return names


def markdown(header: list[str], rows: list[list[str]], pad: bool = True) -> str:
    """A Markdown table; `pad` aligns the columns (off where one column is long prose, as the doctor's)."""
    if not pad:
        line = lambda cells: "| " + " | ".join(cells) + " |"  # noqa: E731
        return "\n".join([line(header), "|" + "|".join("---" for _ in header) + "|", *map(line, rows)])
    widths = [max(len(h), *(len(r[i]) for r in rows)) if rows else len(h) for i, h in enumerate(header)]
    line = lambda cells: "| " + " | ".join(c.ljust(w) for c, w in zip(cells, widths, strict=True)) + " |"  # noqa: E731
    return "\n".join([line(header), "|" + "|".join("-" * (w + 2) for w in widths) + "|", *map(line, rows)])
