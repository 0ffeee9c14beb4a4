"""Plain `nn.Module` networks. No Lightning import here: a network is reusable outside training.

Every classification network exposes `features` (the part frozen for fine-tuning) and `head`
(the final `nn.Linear`, producing logits, never probabilities).
"""
