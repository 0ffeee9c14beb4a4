"""The CNN family's fixtures."""

import pytest

from tests.conftest import TINY


@pytest.fixture
def build_cnn():
    """`build_cnn(*overrides)`: the CNN config on small data, as `project.fit --model cnn` would build it."""

    from project.cli import build

    def _build(*overrides: str):
        return build("cnn", *TINY, "--data.num_train=512", "--data.num_val=256", "--data.num_test=256", *overrides)

    return _build
