"""Encryption at rest for secrets we must be able to read back (webhook signing secrets,
provider API keys).

Fernet (AES-128-CBC + HMAC) from `cryptography`. `TRUTHLENS_ENCRYPTION_KEYS`
holds one or more keys: the first encrypts, all decrypt, so keys rotate
without downtime. Without configured keys a key is derived from SECRET_KEY
(fine for development; production sets explicit keys).
"""

from __future__ import annotations

import base64
import hashlib
from functools import lru_cache

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


@lru_cache(maxsize=1)
def _fernet() -> MultiFernet:
    keys = list(settings.TRUTHLENS["ENCRYPTION_KEYS"])
    if not keys:
        derived = hashlib.sha256(("truthlens-at-rest:" + settings.SECRET_KEY).encode()).digest()
        keys = [base64.urlsafe_b64encode(derived).decode()]
    try:
        return MultiFernet([Fernet(k.encode()) for k in keys])
    except ValueError as exc:
        raise ImproperlyConfigured(
            f"TRUTHLENS_ENCRYPTION_KEYS holds an invalid key: {exc}"
        ) from exc


def encrypt(plaintext: str) -> str:
    return _fernet().encrypt(plaintext.encode()).decode()


def decrypt(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode()).decode()
    except InvalidToken as exc:
        raise ImproperlyConfigured(
            "a stored secret cannot be decrypted with the configured keys"
        ) from exc


def reset_cache() -> None:
    _fernet.cache_clear()


class EncryptedApiKey:
    """`api_key` read and written in clear, stored encrypted in `api_key_encrypted`
    (Fernet, above): provider keys are never at rest in clear."""

    api_key_encrypted: str

    @property
    def api_key(self) -> str:
        return decrypt(self.api_key_encrypted) if self.api_key_encrypted else ""

    @api_key.setter
    def api_key(self, value: str) -> None:
        self.api_key_encrypted = encrypt(value) if value else ""
