"""The command line on the CNN's configs, where only the image family can tell: an option of the other image
DataModule is answered with its name. (The command line itself: runkit's own tests, test_cli_runs.py.)"""

import pytest

from project.cli import main


def test_an_option_of_the_image_folders_names_their_datamodule(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["--model", "cnn", "--data.root", "my_images"], subcommand="fit")
    err = capsys.readouterr().err
    assert exit_.value.code == 2 and "ShapesDataModule takes no 'root'" in err
    assert "; ImageFolderDataModule takes it: --data project.data.images.ImageFolderDataModule" in err
