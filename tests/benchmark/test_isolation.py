from __future__ import annotations

import os
import time

import numpy as np

from metarec.benchmark._isolation import run_isolated


def _square(x):
    return x * x


def _sleep(seconds):
    time.sleep(seconds)
    return "woke"


def _raise():
    raise RuntimeError("boom\nsecond line")


def _allocate(mb):
    return np.ones(int(mb * 1024 * 1024 // 8)).sum()


def _die():
    os.kill(os.getpid(), 9)


def _big_result():
    return np.arange(2_000_000, dtype=float)  # 16 MB, far beyond a pipe's buffer


def test_value_comes_back():
    outcome = run_isolated(_square, 7)
    assert outcome.status == "ok"
    assert outcome.value == 49
    assert outcome.error is None


def test_large_result_is_read_completely():
    outcome = run_isolated(_big_result)
    assert outcome.status == "ok"
    assert outcome.value.shape == (2_000_000,)
    assert outcome.value[-1] == 1_999_999


def test_timeout_kills_the_child():
    start = time.perf_counter()
    outcome = run_isolated(_sleep, 30, timeout=0.5)
    assert outcome.status == "timeout"
    assert "0.5 s" in outcome.error
    assert time.perf_counter() - start < 10


def test_exception_is_reported_on_one_line():
    outcome = run_isolated(_raise)
    assert outcome.status == "error"
    assert outcome.error == "RuntimeError: boom second line"


def test_memory_cap_turns_into_an_error():
    outcome = run_isolated(_allocate, 2048, memory_limit_mb=1024)
    assert outcome.status == "error"
    assert "memory cap" in outcome.error


def test_child_killed_by_a_signal():
    outcome = run_isolated(_die)
    assert outcome.status == "error"
    assert "SIGKILL" in outcome.error
