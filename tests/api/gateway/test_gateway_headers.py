"""A context header too long for the gateway is a JSON 431 the SDKs read, naming the body
field to use instead, through the test server and through the deployment's gunicorn."""

from __future__ import annotations

import anthropic
import openai
import pytest

from api.gateway.options import MAX_CONTEXT_HEADER_BYTES
from tests.faults.services import ApiServer
from tests.fixtures.fake_llm import Reply
from tests.fixtures.llm import configure_llm
from tests.fixtures.workers import _worker_env

QUESTION = [{"role": "user", "content": "When was the Eiffel Tower built?"}]
LONG_CONTEXT = ("The Eiffel Tower was built from 1887 to 1889. " * 450).strip()  # ~20 KB
GUNICORN_PORT = 18401
pytestmark = pytest.mark.usefixtures("short_lived_connections")


def _assert_sdk_431(caught: pytest.ExceptionInfo, names_param: bool = True) -> None:
    assert caught.value.status_code == 431
    error = caught.value.response.json()["error"]
    # OpenAI's error shape names the parameter; Anthropic's has no such field
    if names_param:
        assert error["param"] == "truthlens.context"
    assert error["type"] == "invalid_request_error"
    assert "truthlens.context" in error["message"]
    assert str(MAX_CONTEXT_HEADER_BYTES) in error["message"]


@pytest.fixture
def gunicorn(transactional_db, tmp_path):
    server = ApiServer(_worker_env(), tmp_path / "gunicorn.log", port=GUNICORN_PORT)
    try:
        server.wait_ready()
        yield server
    finally:
        server.stop()


@pytest.mark.django_db(transaction=True)
def test_a_long_context_header_is_a_json_431_naming_the_body_field(live_server, tenant_a, fake_llm):
    # given
    tenant, token = tenant_a
    configure_llm(tenant, fake_llm)
    chat = openai.OpenAI(base_url=f"{live_server.url}/v1", api_key=token, max_retries=0)
    claude = anthropic.Anthropic(base_url=live_server.url, api_key=token, max_retries=0)
    header = {"X-TruthLens-Context": LONG_CONTEXT}
    # when / then: no upstream call is made
    with pytest.raises(openai.APIStatusError) as caught:
        chat.chat.completions.create(model="", messages=QUESTION, extra_headers=header)
    _assert_sdk_431(caught)
    with pytest.raises(anthropic.APIStatusError) as caught:
        claude.messages.create(model="", max_tokens=50, messages=QUESTION, extra_headers=header)
    _assert_sdk_431(caught, names_param=False)
    assert fake_llm.requests == []


@pytest.mark.django_db(transaction=True)
def test_gunicorn_lets_the_gateway_answer_a_long_context_header(gunicorn, tenant_a, fake_llm):
    # given: the deployment's server, which refused such a header with an HTML 431 before
    tenant, token = tenant_a
    configure_llm(tenant, fake_llm)
    chat = openai.OpenAI(base_url=f"{gunicorn.base_url}/v1", api_key=token, max_retries=0)
    # when
    with pytest.raises(openai.APIStatusError) as caught:
        chat.chat.completions.create(
            model="", messages=QUESTION, extra_headers={"X-TruthLens-Context": LONG_CONTEXT}
        )
    # then
    _assert_sdk_431(caught)
    # and a header within the limit still works there
    fake_llm.script(Reply(content="It was built from 1887 to 1889."))
    reply = chat.chat.completions.create(
        model="",
        messages=QUESTION,
        extra_headers={"X-TruthLens-Context": LONG_CONTEXT[:4000].strip()},
    )
    assert reply.model_extra["truthlens"]["context"]["status"] == "explicit"
