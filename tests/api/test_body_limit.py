from django.http import HttpResponse
from django.test import RequestFactory

from api.middleware import BodySizeLimitMiddleware

middleware = BodySizeLimitMiddleware(lambda request: HttpResponse("passed"))


def _chunked_post(body: bytes):
    # a body with no declared length, as a `Transfer-Encoding: chunked` upload arrives
    request = RequestFactory().generic("POST", "/v1/verifications", body)
    del request.META["CONTENT_LENGTH"]
    return request


def test_a_chunked_body_over_the_limit_is_413(settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "MAX_BODY_BYTES": 1024}
    response = middleware(_chunked_post(b"x" * 2048))
    assert response.status_code == 413
    assert response["Content-Type"] == "application/problem+json"


def test_a_chunked_body_under_the_limit_passes(settings):
    settings.TRUTHLENS = {**settings.TRUTHLENS, "MAX_BODY_BYTES": 1024}
    assert middleware(_chunked_post(b"x" * 100)).content == b"passed"


def test_a_malformed_content_length_is_400():
    request = RequestFactory().post("/v1/verifications", b"{}", content_type="application/json")
    request.META["CONTENT_LENGTH"] = "ten"
    assert middleware(request).status_code == 400
