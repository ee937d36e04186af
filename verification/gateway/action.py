"""The gateway's one action: run a `GatewayCall`.

Forward the request to the tenant's upstream (the engine's litellm functions),
create the verification jobs on the interactive lane, wait for them, and build
the verdict. A streamed call returns a `GatewayStream` as soon as the upstream has
opened; the rest runs as the adapter reads it. The HTTP adapters only parse a
request into the call and render what comes back (`docs/gateway.md`).
"""

from __future__ import annotations

from dataclasses import dataclass

from engine import forward, forward_stream

from ..tenant_config import client_for
from .call import GatewayCall
from .completion import verify_completion
from .streaming import GatewayStream


@dataclass
class GatewayReply:
    """A verified (non-streamed) chat completion, with its `truthlens` object, and the
    `X-TruthLens-*` headers."""

    completion: dict
    headers: dict[str, str]


def run_call(call: GatewayCall) -> GatewayReply | GatewayStream:
    """Raises `LLMError` when the upstream fails (or a stream does not open), and
    `VerdictLate` when a verdict is late and the policy refuses unverified answers
    (a stream reports that in its `StreamEnd` instead: its text is already sent)."""
    client = client_for(call.tenant.pk)
    if call.stream:
        upstream = forward_stream(client, call.config, call.messages, call.params, call.extra_body)
        try:
            return GatewayStream(call, upstream, next(upstream))
        except StopIteration as stop:  # an empty stream: nothing to relay
            stream = GatewayStream(call, upstream, None)
            stream.upstream_call = stop.value
            return stream
    reply = forward(client, call.config, call.messages, call.params, call.extra_body)
    completion, headers = verify_completion(call, reply.response, reply.call)
    return GatewayReply(completion, headers)
