"""Connections to tenant-chosen addresses go to an address checked at that moment.

A provider's or search service's API base is checked when it is saved (a form error
the tenant can fix), but a name that resolved to a public address then may resolve
to an internal one now (DNS rebinding). So those HTTP clients connect through
`GuardedBackend`: it resolves the host itself, refuses it unless every address is
public or on the operator's allow-list (read at each connection), and connects to
the address it checked, with no second lookup, as webhooks do at delivery. TLS still
verifies the certificate against the host name.

litellm's clients (`litellm.client_session` for the OpenAI SDK, `litellm.sync_transport`
for its own handler) are guarded with `TRUTHLENS_LLM_ALLOWED_HOSTS`, so every LLM
call, retry, redirect and Test connection is checked; web search
(`knowledge.web_search`) with `TRUTHLENS_WEBHOOK_ALLOWED_HOSTS`, as before.
"""

from __future__ import annotations

import threading
import typing
from collections.abc import Callable

import httpcore
import httpx
from django.conf import settings

from engine import AddressRefused
from security.urlguard import NonPublicAddress, UnsafeUrl, check_url

#: The setting an operator uses to let tenants' LLM providers reach a private address.
LLM_SETTING = "TRUTHLENS_LLM_ALLOWED_HOSTS"


def llm_allowed_hosts() -> list[str]:
    return list(settings.TRUTHLENS["LLM_ALLOWED_HOSTS"])


def search_allowed_hosts() -> list[str]:
    return list(settings.TRUTHLENS["WEBHOOK_ALLOWED_HOSTS"])


def refusal(exc: UnsafeUrl, setting: str = LLM_SETTING) -> str:
    """The guard's reason, naming the operator's way out when the address is private."""
    if isinstance(exc, NonPublicAddress):
        return f"{exc}; an operator can allow it with {setting}"
    return str(exc)


def check_api_base(url: str) -> None:
    """Raise `UnsafeUrl` (with `refusal`'s words) unless an LLM provider at `url` may be
    called now."""
    try:
        check_url(url, llm_allowed_hosts())
    except UnsafeUrl as exc:
        raise UnsafeUrl(refusal(exc)) from exc


class RefusedConnection(httpcore.ConnectError, AddressRefused):
    """httpx reports it as a connection error; the engine does not retry it."""


class GuardedBackend(httpcore.NetworkBackend):
    """httpcore's sync backend, connecting only to vetted addresses: public ones, and
    those `allowed()` lists (`setting` names it in the refusal)."""

    def __init__(self, allowed: Callable[[], list[str]], setting: str) -> None:
        self._inner = httpcore.SyncBackend()
        self._allowed = allowed
        self._setting = setting

    def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,
        local_address: str | None = None,
        socket_options: typing.Iterable[httpcore.SOCKET_OPTION] | None = None,
    ) -> httpcore.NetworkStream:
        literal = f"[{host}]" if ":" in host else host
        try:
            checked = check_url(f"http://{literal}:{port}/", self._allowed())
        except UnsafeUrl as exc:
            reason = refusal(exc, self._setting)
            raise RefusedConnection(f"TruthLens refused to connect: {reason}") from exc
        return self._inner.connect_tcp(
            checked.address, port, timeout, local_address, socket_options
        )

    def connect_unix_socket(self, path, timeout=None, socket_options=None):
        raise RefusedConnection("TruthLens refused to connect: unix sockets are not allowed")

    def sleep(self, seconds: float) -> None:
        self._inner.sleep(seconds)


class GuardedTransport(httpx.HTTPTransport):
    """httpx's transport over `GuardedBackend` (httpx takes no backend argument, so the
    pool it builds is replaced by the same pool on ours)."""

    def __init__(
        self, allowed: Callable[[], list[str]] = llm_allowed_hosts, setting: str = LLM_SETTING
    ) -> None:
        super().__init__()
        self._pool = httpcore.ConnectionPool(
            ssl_context=httpx.create_ssl_context(),
            network_backend=GuardedBackend(allowed, setting),
        )


_installed = threading.Lock()
_done = False


def guard_litellm() -> None:
    """Route litellm's HTTP through the guard (once per process, before its first call)."""
    global _done
    if _done:
        return
    with _installed:
        if _done:
            return
        import litellm

        transport = GuardedTransport()
        litellm.sync_transport = transport
        litellm.client_session = httpx.Client(
            transport=transport, follow_redirects=False, trust_env=False, timeout=None
        )
        _done = True


_search_client: httpx.Client | None = None


def search_client() -> httpx.Client:
    """The HTTP client for web search calls (one guarded pool per process; redirects are
    not followed, proxies from the environment not used)."""
    global _search_client
    if _search_client is None:
        transport = GuardedTransport(search_allowed_hosts, "TRUTHLENS_WEBHOOK_ALLOWED_HOSTS")
        _search_client = httpx.Client(transport=transport, follow_redirects=False, trust_env=False)
    return _search_client
