import pytest
from django.core.exceptions import ImproperlyConfigured

from config.env import env_choice


def test_env_choice_takes_a_listed_value_or_the_default(monkeypatch):
    monkeypatch.delenv("TL_TEST_CHOICE", raising=False)
    assert env_choice("TL_TEST_CHOICE", "auto", ("auto", "float32")) == "auto"
    monkeypatch.setenv("TL_TEST_CHOICE", " float32 ")
    assert env_choice("TL_TEST_CHOICE", "auto", ("auto", "float32")) == "float32"


def test_env_choice_rejects_anything_else_at_start_up(monkeypatch):
    monkeypatch.setenv("TL_TEST_CHOICE", "fp8")
    with pytest.raises(ImproperlyConfigured, match="TL_TEST_CHOICE must be one of auto, float32"):
        env_choice("TL_TEST_CHOICE", "auto", ("auto", "float32"))
