"""Every `LLMSettings` row becomes a provider, then the model goes.

`LLMSettings` held one API base and key that served any model no provider listed
(and, without a key, the environment's provider keys). Each row's credentials become
a provider named "Migrated (<prefix>)" per litellm prefix, serving the default model
and every model the tenant's policy or price table names that no provider serves yet;
the default model moves to `Tenant.default_model`. The key is copied as it is stored
(encrypted), never decrypted here. A model named without a prefix is an `openai/` one,
as litellm reads it.
"""

from django.db import migrations, models


def _split(model_id: str) -> tuple[str, str]:
    prefix, slash, name = model_id.partition("/")
    return (prefix + "/", name) if slash and name else ("openai/", model_id)


def _policy_models(document: dict) -> list[str]:
    premium = document.get("premium") or {}
    cascade = document.get("cascade") or {}
    names = list(premium.get("verification_models") or [])
    names += [premium.get("judge_model"), cascade.get("judge_model")]
    return [n for n in names if isinstance(n, str) and n]


def forwards(apps, schema_editor):
    LLMSettings = apps.get_model("tenants", "LLMSettings")
    LLMProvider = apps.get_model("tenants", "LLMProvider")
    Policy = apps.get_model("tenants", "Policy")
    for llm in LLMSettings.objects.select_related("tenant"):
        tenant = llm.tenant
        providers = list(LLMProvider.objects.filter(tenant=tenant))
        served = {
            (n if n.startswith(p.model_prefix) else p.model_prefix + n)
            for p in providers
            for n in p.model_names or []
        }
        policy = Policy.objects.filter(tenant=tenant).first()
        wanted = [llm.default_model] if llm.default_model else []
        wanted += _policy_models((policy.document if policy else None) or {})
        wanted += list(llm.price_table or {})
        by_prefix: dict[str, list[str]] = {}
        for model_id in dict.fromkeys(wanted):
            prefix, name = _split(model_id)
            if prefix + name not in served:
                by_prefix.setdefault(prefix, []).append(name)
                served.add(prefix + name)
        names = {p.name for p in providers}
        for prefix, models_ in by_prefix.items():
            name = f"Migrated ({prefix})"
            while name in names:
                name += "+"
            names.add(name)
            LLMProvider.objects.create(
                tenant=tenant,
                name=name[:60],
                model_prefix=prefix,
                model_names=models_,
                api_base=llm.api_base,
                api_key_encrypted=llm.api_key_encrypted,
                timeout_seconds=llm.timeout_seconds,
                max_retries=llm.max_retries,
                price_table={
                    _split(m)[1]: price
                    for m, price in (llm.price_table or {}).items()
                    if _split(m)[0] == prefix
                },
            )
        if llm.default_model:
            tenant.default_model = "".join(_split(llm.default_model))
            tenant.save(update_fields=["default_model"])


class Migration(migrations.Migration):
    dependencies = [
        ("tenants", "0007_llm_providers"),
    ]

    operations = [
        migrations.AddField(
            model_name="tenant",
            name="default_model",
            field=models.CharField(blank=True, default="", max_length=200),
        ),
        migrations.RunPython(forwards, migrations.RunPython.noop),
        migrations.DeleteModel(name="LLMSettings"),
    ]
