"""Hyperparameter sweeps on Optuna (`python -m project.sweep`) and repeated runs over seeds or folds
(`python -m project.repeat`). Every trial is an ordinary `project.fit` process; the study lives in its storage."""
