"""Tenant knowledge bases: documents, their passages, and retrieval over them
(Postgres full-text search, re-ranked with the shipped MiniLM encoder), plus the
optional web search provider. Verification without a context checks an answer's
claims against what these find (`verification/stages/ground.py`)."""
