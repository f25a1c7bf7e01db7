"""pytest integration: `pytest --stage ID` collects a stage's cases as test items (being written)."""
