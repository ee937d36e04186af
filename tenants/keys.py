"""API key format, generation and verification.

Keys look like `tl_<prefix>_<secret>`. The prefix (8 chars) is stored in
clear and indexed for lookup; the secret (32 random bytes, urlsafe) is
stored only as a SHA-256 digest. A slow password hash is unnecessary for
256-bit random secrets, and SHA-256 keeps authentication cheap on the hot path.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass

KEY_RE = re.compile(r"^tl_(?P<prefix>[a-z0-9]{8})_(?P<secret>[A-Za-z0-9_-]{20,100})$")
_ALPHABET = "abcdefghijklmnopqrstuvwxyz0123456789"


@dataclass(frozen=True)
class NewKey:
    prefix: str
    secret: str

    @property
    def token(self) -> str:
        return f"tl_{self.prefix}_{self.secret}"

    @property
    def secret_hash(self) -> str:
        return hash_secret(self.secret)


def generate_key() -> NewKey:
    prefix = "".join(secrets.choice(_ALPHABET) for _ in range(8))
    return NewKey(prefix=prefix, secret=secrets.token_urlsafe(32))


def hash_secret(secret: str) -> str:
    return hashlib.sha256(secret.encode()).hexdigest()


def parse_key(token: str) -> tuple[str, str] | None:
    """Split a presented key into (prefix, secret); None if it is not shaped like a key."""
    match = KEY_RE.match(token.strip())
    if not match:
        return None
    return match["prefix"], match["secret"]


def secret_matches(secret: str, stored_hash: str) -> bool:
    """Constant-time comparison of a presented secret against the stored digest."""
    return hmac.compare_digest(hash_secret(secret), stored_hash)
