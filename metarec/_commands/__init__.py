"""Command implementations of the CLI (one module per command group)."""
