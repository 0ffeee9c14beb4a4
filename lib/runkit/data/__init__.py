"""What every DataModule of a project shares: its loaders, splits and checks (`base.py`), the resumable and
DDP-sharded orders it draws from (`sampling.py`), and what it may offer the model, the checks and the tools
beyond its loaders (`offers.py`)."""
