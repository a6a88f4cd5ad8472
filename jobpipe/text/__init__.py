"""Text utilities shared by the normalizer, the store and search."""
