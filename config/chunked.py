"""Chunked request bodies, read for Django with the body-size limit.

Django sizes the body from `Content-Length` alone: a request sent with
`Transfer-Encoding: chunked` (no length) was read as empty, so a valid JSON POST got
"response: This field is required" and a 100 MB one never got its 413. The server
(gunicorn) de-chunks `wsgi.input`; this wrapper reads at most one byte over the
path's limit into a spooled file and hands Django a sized body. Over the limit,
`Content-Length` says so and `BodySizeLimitMiddleware` answers 413 as for any body.
"""

from __future__ import annotations

import tempfile

from django.conf import settings

from api.middleware import limit_for

_CHUNK = 64 * 1024


def _is_chunked(environ) -> bool:
    encoding = environ.get("HTTP_TRANSFER_ENCODING", "").lower()
    return "chunked" in encoding and not environ.get("CONTENT_LENGTH")


def read_chunked(application):
    """Wrap a WSGI `application` so that chunked bodies reach it with a length."""

    def sized(environ, start_response):
        if _is_chunked(environ):
            limit = limit_for(environ.get("PATH_INFO", ""))
            # lives as long as the request's environ, like the server's own input stream
            body = tempfile.SpooledTemporaryFile(max_size=settings.TRUTHLENS["MAX_BODY_BYTES"])  # noqa: SIM115
            stream, size = environ["wsgi.input"], 0
            while size <= limit:
                data = stream.read(min(_CHUNK, limit + 1 - size))
                if not data:
                    break
                body.write(data)
                size += len(data)
            body.seek(0)
            environ["wsgi.input"] = body
            environ["CONTENT_LENGTH"] = str(size)
        return application(environ, start_response)

    return sized
