"""The service's detector, as configured: one place that reads the detector settings."""

from __future__ import annotations

from django.conf import settings

from verification.engine.detectors.base import Detector
from verification.engine.detectors.registry import load_detector


def service_detector() -> Detector:
    """`TRUTHLENS_DETECTOR` at `TRUTHLENS_DETECTOR_DTYPE`, loaded once per process."""
    return load_detector(settings.TRUTHLENS["DETECTOR"], dtype=settings.TRUTHLENS["DETECTOR_DTYPE"])
