"""Renderers: each turns the same result records into one format."""
