"""Our Lightning callbacks."""
