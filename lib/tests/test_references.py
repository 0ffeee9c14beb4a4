"""The check of cited files (runkit.testing.references) on planted mistakes: each kind of citation found missing,
and what is not a citation left alone."""

from pathlib import Path

from runkit.testing.references import dangling


def test_missing_links_and_paths_are_found_with_their_line(tmp_path: Path):
    (tmp_path / "docs").mkdir()
    (tmp_path / "configs").mkdir()
    (tmp_path / "configs" / "trainer.yaml").write_text("# see docs/guide.md#top\n")
    (tmp_path / "docs" / "guide.md").write_text(
        "# Guide\n\n"
        "[here](other.md) and [there](guide.md#guide), [web](https://example.org/x.md)\n"
        "`configs/trainer.yaml` and `configs/missing.yaml`; `configs/NAME.yaml` is a pattern\n"
        "the template's benchmarks/README.md; `runkit/model.py`, `runkit/nothing.py`\n"
        "[up](../configs/trainer.yaml), [up and out](../configs/gone.yaml)\n"
        "```bash\ncurl -d @examples/requests/cnn.json   # an example, run where it is written\n```\n"
        "```\nconfigs/presets/   a layout: citations\n```\n"
    )
    (tmp_path / "code.py").write_text('"""Reads project/data/values.py (tests/test_x.py)."""\n')
    found = dangling(tmp_path)
    assert found == [
        "docs/guide.md:3: other.md",
        "docs/guide.md:4: configs/missing.yaml",
        "docs/guide.md:5: runkit/nothing.py",
        "docs/guide.md:6: ../configs/gone.yaml",
        "docs/guide.md:11: configs/presets/",
        "code.py:1: project/data/values.py",
        "code.py:1: tests/test_x.py",
    ]
    assert dangling(tmp_path, ignore=("code.py",))[-1] == "docs/guide.md:11: configs/presets/"


def test_a_library_inside_the_project_cites_from_its_own_root(tmp_path: Path):
    library = tmp_path / "lib"
    (library / "docs").mkdir(parents=True)
    (library / "pyproject.toml").write_text("")
    (library / "docs" / "serving.md").write_text("# Serving\n")
    (library / "code.py").write_text("# docs/serving.md; docs/absent.md\n")
    assert dangling(tmp_path) == ["lib/code.py:1: docs/absent.md"]
