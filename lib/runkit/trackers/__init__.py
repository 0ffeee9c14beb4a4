"""Experiment trackers stacked beside TensorBoard (configs/loggers/): MLflow and W&B, each continuing the same
tracker run when a fit resumes from a checkpoint (`reattach.py`)."""
