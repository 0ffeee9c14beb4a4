"""A Lightning project template: LSTM, CNN and GCN classifiers that share one training system.

Kept import-free on purpose: `python -m project.fit --model cnn` must not pay for PyG.
"""

import warnings

import runkit  # the library that runs the project: imports nothing heavy either

__version__ = "0.1.0"

# The oldest runkit this code runs on: pyproject.toml's range for lightning-runkit starts here (tests/test_layers.py).
RUNKIT = "0.3.2"
runkit.require_version(RUNKIT, upgrade="make setup")

# Lightning 2.6 on torch 2.13 warns about its own use of a torch API at every step; nothing for users to do.
warnings.filterwarnings("ignore", message=r"`isinstance\(treespec, LeafSpec\)` is deprecated")
# torchdata's StatefulDataLoader calls a torch API that torch 2.13 deprecates, once per loader; nothing to do either.
warnings.filterwarnings("ignore", message="'set_vital' is deprecated")
