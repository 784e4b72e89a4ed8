"""Signals stop a benchmark at once, but never in the middle of a write; machine descriptions."""

from __future__ import annotations

import os
import signal
import time

import pytest

from metarec.benchmark import machine_description
from metarec.execution import Signals, Stop


def test_a_signal_raises_at_once_outside_and_at_the_end_of_a_critical_section():
    written = []
    with Signals() as signals:
        with pytest.raises(Stop) as stop:
            with signals.critical():
                os.kill(os.getpid(), signal.SIGTERM)
                written.append("the whole write")  # still runs: the signal waits
        assert stop.value.signum == signal.SIGTERM and written == ["the whole write"]
        with pytest.raises(Stop):
            os.kill(os.getpid(), signal.SIGINT)
            # Python runs the handler between bytecodes of the main thread: wait in Python
            # (a busy machine may take a while to deliver), not in one C call it may outlast
            waited = time.monotonic() + 30
            while time.monotonic() < waited:
                time.sleep(0.01)
    # the previous handlers are back
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_an_ignored_sigint_stays_ignored():
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN)
    try:
        with Signals():
            assert signal.getsignal(signal.SIGINT) is signal.SIG_IGN
            assert signal.getsignal(signal.SIGTERM) not in (signal.SIG_DFL, signal.SIG_IGN)
    finally:
        signal.signal(signal.SIGINT, previous)


def test_machine_description_names_cores_and_library_versions():
    import sklearn

    text = machine_description()
    assert f"{os.cpu_count()} cores" in text
    assert f"scikit-learn {sklearn.__version__}" in text and "numpy " in text
