"""Alembic migrations of the knowledge-base schema (run through :mod:`metarec.storage._migrate`)."""
