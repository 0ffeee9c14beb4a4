"""The file formats a project's DataModules read, each with errors that name the file, the line and the fix: texts
in CSV, TSV or JSONL (`text`), CoNLL's tagged sentences (`conll`), numeric sequences in UCR/UEA `.ts`, long tables
or `.npz` (`sequences`), series in long or wide CSV (`series`), edge lists and node features in CSV (`edges`), and
the numbers in any of them (`values`)."""
