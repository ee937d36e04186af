"""The quickstart shown with the API keys: a first verification as curl, with the Python SDK
and with the OpenAI client through the gateway.

The snippets name the key by its prefix only and read the secret from the environment
(`TRUTHLENS_API_KEY`), so the secret stays on screen once, in the box above them, and a
snippet copied later (or into a ticket) carries no secret. The base URL is the configured
public address (`TRUTHLENS_PUBLIC_BASE_URL`), never the request's Host header.
"""

from __future__ import annotations

import json
from dataclasses import dataclass

from django.conf import settings

ENV_VAR = "TRUTHLENS_API_KEY"
CONTEXT = [
    "The Eiffel Tower is a wrought-iron lattice tower in Paris. "
    "It was built from 1887 to 1889 as the entrance arch of the 1889 World's Fair."
]
QUERY = "When was the Eiffel Tower built?"
RESPONSE = "The Eiffel Tower was built from 1887 to 1889."


@dataclass(frozen=True)
class Tab:
    slug: str
    label: str
    code: str


def base_url() -> str:
    return settings.TRUTHLENS["PUBLIC_BASE_URL"].rstrip("/")


def _key_line(prefix: str, comment: str = "#") -> str:
    return f"{comment} {ENV_VAR} holds your key tl_{prefix}_… (shown once, when it was created)"


def curl(prefix: str, base: str) -> str:
    body = json.dumps({"context": CONTEXT, "query": QUERY, "response": RESPONSE, "wait": 10})
    body = body.replace("'", "'\\''")  # inside a single-quoted shell word
    return (
        f"{_key_line(prefix)}\n"
        f"curl -s {base}/v1/verifications \\\n"
        f'  -H "Authorization: Bearer ${ENV_VAR}" \\\n'
        '  -H "Content-Type: application/json" \\\n'
        f"  -d '{body}'\n"
    )


def python_sdk(prefix: str, base: str) -> str:
    return (
        "# pip install ./sdk/python   (from your TruthLens checkout; `make install` has it)\n"
        f"{_key_line(prefix)}\n"
        "import os\n\n"
        "from truthlens import TruthLens\n\n"
        f'client = TruthLens(api_key=os.environ["{ENV_VAR}"], base_url="{base}")\n'
        "result = client.verify(\n"
        f"    context={CONTEXT!r},\n"
        f"    query={QUERY!r},\n"
        f"    response={RESPONSE!r},\n"
        ")\n"
        "print(result)\n"
    )


def openai_gateway(prefix: str, base: str, model: str) -> str:
    model_note = "" if model else "  # your default model; add an LLM provider first"
    return (
        "# pip install openai\n"
        f"{_key_line(prefix)}\n"
        "import os\n\n"
        "from openai import OpenAI\n\n"
        f'client = OpenAI(api_key=os.environ["{ENV_VAR}"], base_url="{base}/v1")\n'
        "reply = client.chat.completions.create(\n"
        f"    model={model!r},{model_note}\n"
        f'    messages=[{{"role": "user", "content": {QUERY!r}}}],\n'
        f'    extra_body={{"truthlens": {{"context": {CONTEXT!r}}}}},\n'
        ")\n"
        "print(reply.choices[0].message.content)\n"
        'print(reply.model_extra["truthlens"])  # score, detected, spans\n'
    )


def tabs(prefix: str, default_model: str = "") -> list[Tab]:
    base = base_url()
    return [
        Tab("curl", "curl", curl(prefix, base)),
        Tab("python", "Python SDK", python_sdk(prefix, base)),
        Tab("openai", "OpenAI client (gateway)", openai_gateway(prefix, base, default_model)),
    ]
