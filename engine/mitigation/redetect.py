"""Bind the detection pipeline into the `Redetect` callable the mitigation modes take."""

from __future__ import annotations

from ..detectors.base import Detector
from ..pipeline import DetectionConfig, verify
from ..query_types import QueryClassifier
from ..types import DetectionInput, DetectionResult
from .result import Redetect


def redetector(
    config: DetectionConfig,
    detector: Detector,
    classifier: QueryClassifier | None = None,
) -> Redetect:
    """`item -> verify(item, config, detector)`: the same policy for every candidate answer.

    Use the config the original answer was detected with, so the scores the
    loop compares are on one scale.
    """

    def run(item: DetectionInput) -> DetectionResult:
        return verify(item, config, detector, classifier=classifier)

    return run
