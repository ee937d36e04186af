"""The data migration that turns every `LLMSettings` row into a provider (0008)."""

from __future__ import annotations

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor

BEFORE = [("tenants", "0007_llm_providers")]
AFTER = [("tenants", "0008_providers_replace_llmsettings")]


def _migrate(targets):
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


@pytest.fixture
def _back_to_the_latest_schema():
    """Leave the database at every app's newest migration: later tests need the columns
    that migrations after 0008 add."""
    yield
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())


@pytest.mark.django_db(transaction=True)
@pytest.mark.usefixtures("_back_to_the_latest_schema")
def test_every_llmsettings_row_becomes_a_provider_and_the_model_goes():
    # given, before the migration, a tenant with single LLM settings whose policy names a
    # judge of another provider family, and a tenant whose provider already serves its model
    old = _migrate(BEFORE)
    Tenant, LLMSettings = (
        old.get_model("tenants", "Tenant"),
        old.get_model("tenants", "LLMSettings"),
    )
    Provider, Policy = old.get_model("tenants", "LLMProvider"), old.get_model("tenants", "Policy")
    legacy = Tenant.objects.create(slug="legacy", name="Legacy")
    Policy.objects.create(
        tenant=legacy,
        document={
            "premium": {
                "verification_models": ["openai/verifier"],
                "judge_model": "anthropic/claude-x",
            }
        },
    )
    LLMSettings.objects.create(
        tenant=legacy,
        default_model="openai/gpt-4o-mini",
        api_base="http://10.0.0.8:8000/v1",
        api_key_encrypted="gAAAA-encrypted",
        timeout_seconds=12,
        max_retries=1,
        price_table={"openai/verifier": {"input": 1, "output": 2}},
    )
    both = Tenant.objects.create(slug="both", name="Both")
    Provider.objects.create(
        tenant=both, name="Mine", model_prefix="openai/", model_names=["gpt-4o-mini"]
    )
    LLMSettings.objects.create(tenant=both, default_model="openai/gpt-4o-mini")
    # when the migration runs
    new = _migrate(AFTER)
    Tenant, Provider = new.get_model("tenants", "Tenant"), new.get_model("tenants", "LLMProvider")
    # then the legacy credentials serve the same models as providers, one per prefix
    migrated = {p.model_prefix: p for p in Provider.objects.filter(tenant__slug="legacy")}
    assert set(migrated) == {"openai/", "anthropic/"}
    openai_ = migrated["openai/"]
    assert openai_.model_names == ["gpt-4o-mini", "verifier"]
    assert (openai_.api_base, openai_.api_key_encrypted) == (
        "http://10.0.0.8:8000/v1",
        "gAAAA-encrypted",
    )
    assert (openai_.timeout_seconds, openai_.max_retries) == (12, 1)
    assert openai_.price_table == {"verifier": {"input": 1, "output": 2}}
    assert migrated["anthropic/"].model_names == ["claude-x"]
    assert Tenant.objects.get(slug="legacy").default_model == "openai/gpt-4o-mini"
    # and a model a provider already served is not served twice
    assert Provider.objects.filter(tenant__slug="both").count() == 1
    assert Tenant.objects.get(slug="both").default_model == "openai/gpt-4o-mini"
    # and the old model is gone
    with connection.cursor() as cursor:
        assert "tenants_llmsettings" not in connection.introspection.table_names(cursor)
