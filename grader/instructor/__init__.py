"""instructor."""
