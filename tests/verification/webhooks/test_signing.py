"""Webhook signatures: HMAC of timestamp and body, tampering and replays rejected."""

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


def test_a_header_with_two_signatures_verifies_with_either_secret():
    body = b'{"id":"evt_1"}'
    header = signing.sign(["whsec_new", "whsec_old"], body, timestamp=1_700_000_000)
    assert header.startswith("t=1700000000,v1=")
    assert header.count(",v1=") == 2
    assert signing.verify("whsec_new", body, header, now=1_700_000_001)
    assert signing.verify("whsec_old", body, header, now=1_700_000_001)
    assert not signing.verify("whsec_else", body, header, now=1_700_000_001)


def test_a_header_without_a_signature_does_not_verify():
    assert not signing.verify("s", b"{}", "t=1700000000", now=1_700_000_000)
    assert not signing.verify("s", b"{}", "garbage", now=1_700_000_000)
