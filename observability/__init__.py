"""Metrics (`truthlens_*` for Prometheus), log context and redaction, and tracing:
shared by the API, the workers and the settings; nothing here imports them."""
