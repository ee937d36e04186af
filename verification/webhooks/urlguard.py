"""Refuse webhook URLs that reach internal addresses (SSRF).

A URL is checked when it is registered and again at delivery, where the
connection goes to the very address that was checked (no second DNS
lookup, so DNS rebinding cannot swap in an internal address). Redirects
are never followed.
"""

from __future__ import annotations

import ipaddress
import socket
from collections.abc import Iterable
from dataclasses import dataclass
from urllib.parse import urlsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class UnsafeUrl(ValueError):
    """The URL is malformed or resolves to an address we will not call."""


class NonPublicAddress(UnsafeUrl):
    """The host resolves to a private, loopback or other non-public address."""


@dataclass(frozen=True)
class CheckedUrl:
    url: str
    scheme: str
    host: str
    port: int
    address: str  # the vetted IP to connect to


def _is_public(ip: IPAddress) -> bool:
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not ip.is_multicast


def _allowed(host: str, ip: IPAddress, allowed_hosts: Iterable[str]) -> bool:
    for entry in allowed_hosts:
        if entry.lower() == host.lower():
            return True
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


def resolve(host: str, port: int) -> list[IPAddress]:
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise UnsafeUrl(f"host {host!r} does not resolve") from exc
    return [ipaddress.ip_address(info[4][0].split("%", 1)[0]) for info in infos]


def check_url(url: str, allowed_hosts: Iterable[str] = ()) -> CheckedUrl:
    """Validate `url` and return the address to connect to; raise `UnsafeUrl` otherwise.

    Every address the host resolves to must be public (or explicitly allowed):
    one internal answer among public ones is enough to refuse.
    """
    allowed = list(allowed_hosts)
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise UnsafeUrl(f"malformed URL: {exc}") from exc
    if parts.scheme not in ("http", "https"):
        raise UnsafeUrl("only http and https URLs are allowed")
    if not parts.hostname:
        raise UnsafeUrl("the URL has no host")
    if parts.username or parts.password:
        raise UnsafeUrl("credentials in the URL are not allowed")
    host = parts.hostname
    port = port or (443 if parts.scheme == "https" else 80)
    addresses = resolve(host, port)
    if not addresses:
        raise UnsafeUrl(f"host {host!r} does not resolve")
    for ip in addresses:
        if not _is_public(ip) and not _allowed(host, ip, allowed):
            raise NonPublicAddress(f"{host!r} resolves to a non-public address ({ip})")
    return CheckedUrl(url=url, scheme=parts.scheme, host=host, port=port, address=str(addresses[0]))
