"""`python -m project.serve CHECKPOINT`: a trained model behind an HTTP endpoint, on LitServe (docs/serving.md)."""
