"""The OpenAI- and Anthropic-compatible gateway: request options, forwarding, verdicts, streams."""
