import socket

import pytest

from security import urlguard
from security.urlguard import UnsafeUrl, check_url


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


# IPv6 forms that carry an internal IPv4 address, and IANA special-purpose ranges that
# Python's `is_global` (3.11) still calls global.
EMBEDDED_OR_SPECIAL = [
    "http://[64:ff9b::7f00:1]/x",  # NAT64 of 127.0.0.1
    "http://[64:ff9b::a9fe:a9fe]/x",  # NAT64 of the cloud metadata address
    "http://[64:ff9b::a00:1]/x",  # NAT64 of 10.0.0.1
    "http://[64:ff9b:1::7f00:1]/x",  # local-use NAT64 prefix
    "http://[64:ff9b:1::808:808]/x",  # local-use NAT64 prefix, even of a public address
    "http://[2002:7f00:1::]/x",  # 6to4 of 127.0.0.1
    "http://[2002:a9fe:a9fe::1]/x",  # 6to4 of 169.254.169.254
    "http://[::127.0.0.1]/x",  # IPv4-compatible
    "http://[::a9fe:a9fe]/x",  # IPv4-compatible, hex spelling
    "http://[::ffff:169.254.169.254]/x",  # IPv4-mapped
    "http://[::ffff:0:7f00:1]/x",  # SIIT IPv4-translated
    "http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/x",  # Teredo
    "http://[2001:4860::5efe:7f00:1]/x",  # ISATAP interface id carrying 127.0.0.1
    "http://[2001:4860::200:5efe:a00:1]/x",  # ISATAP, universal bit set, carrying 10.0.0.1
    "http://[2001:db8::1]/x",  # documentation
    "http://[3fff::1]/x",  # documentation (RFC 9637)
    "http://[100::1]/x",  # discard-only
    "http://[fc00::1]/x",  # unique local
    "http://[ff02::1]/x",  # multicast
    "http://192.0.0.8/x",  # IPv4 dummy address
    "http://192.0.0.9/x",  # rest of 192.0.0.0/24
    "http://192.0.0.170/x",  # NAT64 discovery
    "http://192.88.99.1/x",  # 6to4 relay anycast
    "http://192.31.196.1/x",  # AS112
    "http://192.52.193.1/x",  # AMT
    "http://192.175.48.1/x",  # AS112 direct delegation
    "http://198.18.0.1/x",  # benchmarking
    "http://203.0.113.5/x",  # documentation
    "http://240.0.0.1/x",  # reserved
    "http://255.255.255.255/x",  # limited broadcast
    "http://224.0.0.1/x",  # multicast
]


@pytest.mark.parametrize("url", EMBEDDED_OR_SPECIAL)
def test_embedded_ipv4_and_special_purpose_addresses_are_refused(url):
    with pytest.raises(UnsafeUrl, match="non-public"):
        check_url(url)


def test_the_refusal_names_the_ipv4_address_inside():
    with pytest.raises(UnsafeUrl, match=r"carries 127\.0\.0\.1"):
        check_url("http://[64:ff9b::7f00:1]/x")


@pytest.mark.parametrize(
    "url",
    [
        "http://[64:ff9b::808:808]/x",  # NAT64 of a public address: how NAT64 networks reach it
        "http://[::ffff:8.8.8.8]/x",
        "http://[2001:4860:4860::8888]/x",
        "http://[2606:4700::1111]/x",
    ],
)
def test_public_ipv6_addresses_stay_allowed(url):
    assert check_url(url).port == 80


def test_a_name_resolving_to_a_nat64_internal_address_is_refused(monkeypatch):
    def fake_getaddrinfo(host, port, type=0):
        return [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", ("64:ff9b::a9fe:a9fe", port, 0, 0))]

    monkeypatch.setattr(urlguard.socket, "getaddrinfo", fake_getaddrinfo)
    with pytest.raises(UnsafeUrl, match="169.254.169.254"):
        check_url("https://metadata.example.com/x")


def test_the_allow_list_matches_only_the_address_it_names():
    # allowing 127.0.0.1 does not open its IPv6 disguises
    assert check_url("http://localhost:8080/x", ["127.0.0.1", "localhost"]).port == 8080
    for url in ("http://[64:ff9b::7f00:1]/x", "http://[2002:7f00:1::]/x", "http://[::127.0.0.1]/x"):
        with pytest.raises(UnsafeUrl):
            check_url(url, ["127.0.0.1"])
