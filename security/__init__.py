"""Shared security helpers, below every app: the outbound address guard (`urlguard.py`:
webhooks, knowledge-base URL fetches, web search, LLM provider API bases) and encryption
at rest of the secrets we must read back (`crypto.py`: webhook signing secrets, provider
API keys). Nothing here imports the apps.
"""
