import pytest

from metarec.automl import parse_duration
from metarec.exceptions import InvalidInputError


@pytest.mark.parametrize(
    ("text", "seconds"),
    [
        ("90", 90.0),
        (90, 90.0),
        (2.5, 2.5),
        ("90s", 90.0),
        ("1.5m", 90.0),
        ("10m", 600.0),
        ("10 min", 600.0),
        ("1h", 3600.0),
        ("1h30m", 5400.0),
        ("1h 30m", 5400.0),
        ("2d", 172800.0),
        (" 45S ", 45.0),
    ],
)
def test_durations_people_write(text, seconds):
    assert parse_duration(text) == seconds


@pytest.mark.parametrize(
    "text", ["0", 0, "0s", "-1", -5, "abc", "1x", "1h30", "", "inf", "nan", True]
)
def test_nonsense_zero_and_negative_are_refused(text):
    with pytest.raises(InvalidInputError):
        parse_duration(text)
