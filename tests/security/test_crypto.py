import pytest
from cryptography.fernet import Fernet
from django.core.exceptions import ImproperlyConfigured

from security import crypto


@pytest.fixture
def use_keys(settings):
    """Point TRUTHLENS_ENCRYPTION_KEYS at `keys` (the Fernet is cached per process)."""

    def use(*keys: str) -> None:
        settings.TRUTHLENS = {**settings.TRUTHLENS, "ENCRYPTION_KEYS": list(keys)}
        crypto.reset_cache()

    yield use
    crypto.reset_cache()  # the next test builds it again from its own settings


def test_keys_rotate_the_first_encrypts_and_all_decrypt(use_keys):
    old, new = Fernet.generate_key().decode(), Fernet.generate_key().decode()
    use_keys(old)
    stored = crypto.encrypt("whsec_before-rotation")
    # when a new key is put first
    use_keys(new, old)
    # then what was stored still reads, and new writes use the new key
    assert crypto.decrypt(stored) == "whsec_before-rotation"
    assert Fernet(new.encode()).decrypt(crypto.encrypt("fresh").encode()) == b"fresh"
    # and once the old key is dropped its tokens fail loudly, not silently
    use_keys(new)
    with pytest.raises(ImproperlyConfigured, match="cannot be decrypted"):
        crypto.decrypt(stored)


def test_a_malformed_key_is_a_configuration_error(use_keys):
    use_keys("not-a-fernet-key")
    with pytest.raises(ImproperlyConfigured, match="holds an invalid key"):
        crypto.encrypt("x")
