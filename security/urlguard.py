"""Refuse outbound URLs that reach internal addresses (SSRF).

Every URL the service calls on a tenant's behalf goes through `check_url`: webhook
endpoints and callback URLs, LLM provider and web-search base URLs.

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
from urllib.parse import urlsplit, urlunsplit

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


class UnsafeUrl(ValueError):
    """The URL is malformed or resolves to an address we will not call."""


class Unresolvable(UnsafeUrl):
    """The host does not resolve (now): DNS may answer later, so a delivery retries."""


class NonPublicAddress(UnsafeUrl):
    """The host resolves to a private, loopback or other non-public address."""


@dataclass(frozen=True)
class CheckedUrl:
    url: str
    scheme: str
    host: str
    port: int
    address: str  # the vetted IP to connect to

    def pinned_url(self, url: str | None = None) -> str:
        """`url` (by default the checked one, or a path under it on the same host) with
        the vetted address in place of the host name: the client never resolves it again."""
        parts = urlsplit(url or self.url)
        host = f"[{self.address}]" if ":" in self.address else self.address
        return urlunsplit((parts.scheme, f"{host}:{self.port}", parts.path or "/", parts.query, ""))

    @property
    def host_header(self) -> str:
        return self.host if self.port in (80, 443) else f"{self.host}:{self.port}"

    @property
    def extensions(self) -> dict[str, str]:
        """httpx request extensions: TLS names and verifies the host, not the address."""
        return {"sni_hostname": self.host}


# Every entry of the IANA special-purpose address registries
# (iana-ipv4-special-registry, iana-ipv6-special-registry), plus multicast and the
# reserved IPv6 space outside 2000::/3. None is a place a webhook, a search provider or an
# LLM provider lives; entries the registries call "globally reachable" (the AS112 and AMT
# anycast blocks, 192.0.0.9) are refused too, since no tenant needs them.
_SPECIAL_V4 = tuple(
    ipaddress.IPv4Network(net)
    for net in (
        "0.0.0.0/8",  # "this network"
        "10.0.0.0/8",  # private use
        "100.64.0.0/10",  # shared address space (carrier-grade NAT)
        "127.0.0.0/8",  # loopback
        "169.254.0.0/16",  # link local (cloud metadata)
        "172.16.0.0/12",  # private use
        "192.0.0.0/24",  # IETF protocol assignments (DS-Lite, 192.0.0.8 dummy, NAT64 discovery)
        "192.0.2.0/24",  # documentation (TEST-NET-1)
        "192.31.196.0/24",  # AS112-v4
        "192.52.193.0/24",  # AMT
        "192.88.99.0/24",  # deprecated 6to4 relay anycast
        "192.168.0.0/16",  # private use
        "192.175.48.0/24",  # direct delegation AS112 service
        "198.18.0.0/15",  # benchmarking
        "198.51.100.0/24",  # documentation (TEST-NET-2)
        "203.0.113.0/24",  # documentation (TEST-NET-3)
        "224.0.0.0/4",  # multicast
        "240.0.0.0/4",  # reserved, and 255.255.255.255 limited broadcast
    )
)
_SPECIAL_V6 = tuple(
    ipaddress.IPv6Network(net)
    for net in (
        "::/8",  # unspecified, loopback, IPv4-compatible (::a.b.c.d), reserved
        "64:ff9b:1::/48",  # local-use IPv4/IPv6 translation
        "100::/64",  # discard-only
        "100:0:0:1::/64",  # dummy IPv6 prefix
        "2001::/23",  # IETF protocol assignments: Teredo 2001::/32, benchmarking, ORCHID...
        "2001:db8::/32",  # documentation
        "2002::/16",  # 6to4
        "3fff::/20",  # documentation
        "5f00::/16",  # SRv6 SIDs
        "fc00::/7",  # unique local
        "fe80::/10",  # link local
        "fec0::/10",  # deprecated site local
        "ff00::/8",  # multicast
    )
)
# The two IPv6 prefixes whose addresses *are* an IPv4 address, judged by the IPv4 inside:
# ::ffff:a.b.c.d (IPv4-mapped) and 64:ff9b::a.b.c.d (well-known NAT64 prefix).
_WRAPS_V4 = (ipaddress.IPv6Network("::ffff:0:0/96"), ipaddress.IPv6Network("64:ff9b::/96"))


def embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """Every IPv4 address `ip` carries: IPv4-mapped, IPv4-compatible, SIIT-translated
    (::ffff:0:a.b.c.d), NAT64 (64:ff9b::/96 and the local-use 64:ff9b:1::/48), 6to4
    (2002:a.b.c.d::), Teredo (the server and the obfuscated client) and ISATAP
    (an interface id of [02]00:5efe:a.b.c.d)."""
    value = int(ip)
    low32 = ipaddress.IPv4Address(value & 0xFFFFFFFF)
    found: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        found.append(ip.ipv4_mapped)
    if value >> 32 == 0 or value >> 32 == 0xFFFF0000:  # ::a.b.c.d and ::ffff:0:a.b.c.d
        found.append(low32)
    if ip in _WRAPS_V4[1] or ip in ipaddress.IPv6Network("64:ff9b:1::/48"):
        found.append(low32)
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    if (value >> 32) & 0xFDFFFFFF == 0x00005EFE:  # ISATAP: the u/l bit aside
        found.append(low32)
    return found


def _embedded(ip: IPAddress) -> list[ipaddress.IPv4Address]:
    return embedded_ipv4(ip) if isinstance(ip, ipaddress.IPv6Address) else []


def _v4_is_public(ip: ipaddress.IPv4Address) -> bool:
    return ip.is_global and not any(ip in net for net in _SPECIAL_V4)


def is_public(ip: IPAddress) -> bool:
    """Whether `ip` is an ordinary public unicast address, with every IPv4 address
    embedded in an IPv6 one unwrapped and judged as well."""
    if isinstance(ip, ipaddress.IPv4Address):
        return _v4_is_public(ip)
    if any(ip in net for net in _WRAPS_V4):
        return _v4_is_public(ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF))
    if not ip.is_global or any(ip in net for net in _SPECIAL_V6):
        return False
    return all(_v4_is_public(v4) for v4 in embedded_ipv4(ip))


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
        raise Unresolvable(f"host {host!r} does not resolve") from exc
    return [ipaddress.ip_address(str(info[4][0]).split("%", 1)[0]) for info in infos]


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
        raise Unresolvable(f"host {host!r} does not resolve")
    for ip in addresses:
        if not is_public(ip) and not _allowed(host, ip, allowed):
            inner = ", ".join(str(v4) for v4 in _embedded(ip))
            carried = f", which carries {inner}" if inner else ""
            raise NonPublicAddress(f"{host!r} resolves to a non-public address ({ip}{carried})")
    return CheckedUrl(url=url, scheme=parts.scheme, host=host, port=port, address=str(addresses[0]))
