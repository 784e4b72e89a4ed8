"""The entry point of a warm worker process: ``python -m metarec.execution._worker``.

Kept apart from :mod:`metarec.execution._pool` so that the module the parent imports is not
also run as ``__main__`` in the worker (one copy of each class there).
"""

from metarec.execution._pool import _worker_main

if __name__ == "__main__":  # pragma: no cover - runs in the worker process
    _worker_main()
