"""Applications: whole jobs chained from the kernels (the seed paper's communities app)."""

__all__ = ["communities"]
