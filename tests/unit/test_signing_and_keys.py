from tenants.keys import generate_key, parse_key, secret_matches
from verification.webhooks import signing


def test_a_signature_verifies_and_tampering_fails():
    body = b'{"id":"evt_1"}'
    header = signing.sign("whsec_x", body, timestamp=1_700_000_000)
    assert signing.verify("whsec_x", body, header, now=1_700_000_010)
    assert not signing.verify("whsec_x", body + b" ", header, now=1_700_000_010)
    assert not signing.verify("whsec_y", body, header, now=1_700_000_010)


def test_an_old_signature_is_rejected_as_a_replay():
    header = signing.sign("s", b"{}", timestamp=1_700_000_000)
    assert not signing.verify("s", b"{}", header, now=1_700_000_000 + 3600)


def test_the_signature_is_hmac_of_timestamp_dot_body():
    import hashlib
    import hmac

    header = signing.sign("s", b"abc", timestamp=42)
    expected = hmac.new(b"s", b"42.abc", hashlib.sha256).hexdigest()
    assert header == f"t=42,v1={expected}"


def test_generated_keys_parse_and_match_only_their_hash():
    key = generate_key()
    prefix, secret = parse_key(key.token)
    assert prefix == key.prefix
    assert secret == key.secret
    assert secret_matches(secret, key.secret_hash)
    assert not secret_matches(secret + "x", key.secret_hash)
    assert parse_key("tl_short_x") is None
