"""OpenTelemetry tracing, off by default (`TRUTHLENS_TRACING=console|otlp` turns it on).

Spans: the API request, the enqueue, detect, mitigate and webhook delivery;
the trace context travels in Celery message headers, so one trace covers a
verification from request to webhook.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from opentelemetry import propagate, trace

_configured = False


def configure(exporter: str) -> None:
    """Install a tracer provider once per process; a no-op when `exporter` is empty."""
    global _configured
    if _configured or not exporter:
        return
    # the OpenTelemetry SDK loads only when tracing is switched on
    from django.core.exceptions import ImproperlyConfigured
    from opentelemetry.sdk.resources import Resource
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor, ConsoleSpanExporter

    if exporter == "console":
        span_exporter: Any = ConsoleSpanExporter()
    elif exporter == "otlp":
        try:
            # the OTLP exporter is needed only with an endpoint configured
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter
        except ImportError as exc:
            raise ImproperlyConfigured(
                "TRUTHLENS_TRACING=otlp needs opentelemetry-exporter-otlp-proto-http installed"
            ) from exc
        span_exporter = OTLPSpanExporter()  # endpoint from OTEL_EXPORTER_OTLP_ENDPOINT
    else:
        raise ImproperlyConfigured(f"TRUTHLENS_TRACING must be console or otlp, got {exporter!r}")
    provider = TracerProvider(resource=Resource.create({"service.name": "truthlens"}))
    provider.add_span_processor(BatchSpanProcessor(span_exporter))
    trace.set_tracer_provider(provider)
    _configured = True


def tracer() -> trace.Tracer:
    return trace.get_tracer("truthlens")


@contextmanager
def span(name: str, **attributes: Any) -> Iterator[trace.Span]:
    with tracer().start_as_current_span(name, attributes=attributes) as current:
        yield current


def inject(headers: dict) -> None:
    propagate.inject(headers)


def carrier_of(task_request: Any) -> dict[str, str]:
    """The W3C trace headers of a Celery task request (custom headers become attributes)."""
    carrier: dict[str, str] = {}
    for key in ("traceparent", "tracestate"):
        value = getattr(task_request, key, None) or (task_request.headers or {}).get(key)
        if value:
            carrier[key] = value
    return carrier


@contextmanager
def continued(task_request: Any, name: str, **attributes: Any) -> Iterator[trace.Span]:
    """A span that continues the trace carried in a task's message headers."""
    ctx = propagate.extract(carrier_of(task_request))
    with tracer().start_as_current_span(name, context=ctx, attributes=attributes) as current:
        yield current
