"""A Lightning project template: LSTM, CNN and GCN classifiers that share one training system.

Kept import-free on purpose: `python -m project.fit --model cnn` must not pay for PyG.
"""

__version__ = "0.1.0"
