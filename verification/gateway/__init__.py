"""The gateway's service layer: a parsed call (`GatewayCall`) and the action that runs it.

`api/gateway/` and the two views adapt HTTP to it (OpenAI chat completions,
Anthropic messages); everything that forwards, verifies and waits is here.
"""

from .action import GatewayReply, run_call
from .call import GatewayCall, Grounding, Options
from .streaming import GatewayStream, StreamEnd
from .verdicts import VerdictLate

__all__ = [
    "GatewayCall",
    "GatewayReply",
    "GatewayStream",
    "Grounding",
    "Options",
    "StreamEnd",
    "VerdictLate",
    "run_call",
]
