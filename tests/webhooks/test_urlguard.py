import socket

import pytest

from verification.webhooks import urlguard
from verification.webhooks.urlguard import UnsafeUrl, check_url


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/x",
        "http://localhost/x",
        "http://10.1.2.3/x",
        "http://172.16.0.1/x",
        "http://192.168.1.1/x",
        "http://169.254.169.254/latest/meta-data",
        "http://[::1]/x",
        "http://[::ffff:127.0.0.1]/x",
        "http://[fe80::1]/x",
        "http://0.0.0.0/x",
        "http://100.64.0.1/x",
    ],
)
def test_internal_addresses_are_refused(url):
    with pytest.raises(UnsafeUrl):
        check_url(url)


@pytest.mark.parametrize(
    "url", ["ftp://example.com/", "http:///nohost", "http://user:pw@8.8.8.8/", "not a url"]
)
def test_malformed_or_odd_urls_are_refused(url):
    with pytest.raises(UnsafeUrl):
        check_url(url)


def test_a_public_address_is_accepted_and_pinned():
    checked = check_url("https://8.8.8.8/hook")
    assert checked.address == "8.8.8.8"
    assert checked.port == 443


def test_one_internal_answer_among_public_ones_is_enough_to_refuse(monkeypatch):
    # A rebinding-style DNS answer mixing a public and an internal address.
    def fake_getaddrinfo(host, port, type=0):
        return [
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("93.184.216.34", port)),
            (socket.AF_INET, socket.SOCK_STREAM, 6, "", ("10.0.0.7", port)),
        ]

    monkeypatch.setattr(urlguard.socket, "getaddrinfo", fake_getaddrinfo)
    with pytest.raises(UnsafeUrl, match="non-public"):
        check_url("https://hooks.example.com/x")


def test_allowed_hosts_exempt_loopback_explicitly():
    assert check_url("http://127.0.0.1:8080/x", ["127.0.0.1"]).address == "127.0.0.1"
    assert check_url("http://127.0.0.1:8080/x", ["127.0.0.0/8"]).port == 8080
