import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_choice, env_float, env_int


def test_env_choice_takes_a_listed_value_or_the_default(monkeypatch):
    monkeypatch.delenv("TL_TEST_CHOICE", raising=False)
    assert env_choice("TL_TEST_CHOICE", "auto", ("auto", "float32")) == "auto"
    monkeypatch.setenv("TL_TEST_CHOICE", " float32 ")
    assert env_choice("TL_TEST_CHOICE", "auto", ("auto", "float32")) == "float32"


def test_env_choice_rejects_anything_else_at_start_up(monkeypatch):
    monkeypatch.setenv("TL_TEST_CHOICE", "fp8")
    with pytest.raises(ImproperlyConfigured, match="TL_TEST_CHOICE must be one of auto, float32"):
        env_choice("TL_TEST_CHOICE", "auto", ("auto", "float32"))


def test_env_int_and_env_float_parse_and_enforce_the_minimum(monkeypatch):
    monkeypatch.delenv("TL_TEST_NUMBER", raising=False)
    assert env_int("TL_TEST_NUMBER", 7) == 7
    monkeypatch.setenv("TL_TEST_NUMBER", "12")
    assert env_int("TL_TEST_NUMBER", 7, minimum=1) == 12
    assert env_float("TL_TEST_NUMBER", 0.5) == 12.0
    monkeypatch.setenv("TL_TEST_NUMBER", "0.25")
    with pytest.raises(ImproperlyConfigured, match="TL_TEST_NUMBER must be an integer"):
        env_int("TL_TEST_NUMBER", 7)
    with pytest.raises(ImproperlyConfigured, match="TL_TEST_NUMBER must be >= 1.0, got 0.25"):
        env_float("TL_TEST_NUMBER", 2.0, minimum=1.0)
    monkeypatch.setenv("TL_TEST_NUMBER", "many")
    with pytest.raises(ImproperlyConfigured, match="TL_TEST_NUMBER must be a number"):
        env_float("TL_TEST_NUMBER", 2.0)
