"""Forms of the policy editor's tools: YAML import (upload, then confirm) and the test box."""

from __future__ import annotations

from django import forms

MAX_YAML_BYTES = 256 * 1024


class YamlImportForm(forms.Form):
    yaml_text = forms.CharField(
        required=False,
        label="Paste YAML",
        widget=forms.Textarea(attrs={"rows": 10, "spellcheck": "false", "class": "mono"}),
    )
    yaml_file = forms.FileField(required=False, label="…or upload a .yaml file")

    def clean(self):
        data = super().clean()
        upload = data.get("yaml_file")
        if upload:
            if upload.size > MAX_YAML_BYTES:
                raise forms.ValidationError("The file is larger than 256 KB.")
            try:
                data["yaml_text"] = upload.read().decode("utf-8")
            except UnicodeDecodeError as exc:
                raise forms.ValidationError("The file is not UTF-8 text.") from exc
        if not (data.get("yaml_text") or "").strip():
            raise forms.ValidationError("Paste a policy or choose a file.")
        return data


class ImportConfirmForm(forms.Form):
    """The second step of an import: the previewed YAML, and the version it was compared with."""

    yaml_text = forms.CharField(widget=forms.HiddenInput, strip=False, max_length=MAX_YAML_BYTES)
    version = forms.IntegerField(min_value=0, widget=forms.HiddenInput)


class PolicyTestForm(forms.Form):
    context = forms.CharField(
        label="Context",
        widget=forms.Textarea(attrs={"rows": 5}),
        help_text="Grounding passages; separate passages with a blank line.",
        max_length=100_000,
    )
    query = forms.CharField(
        required=False, label="Question", widget=forms.TextInput(), max_length=5_000
    )
    response = forms.CharField(
        label="Answer to check", widget=forms.Textarea(attrs={"rows": 4}), max_length=20_000
    )
    domain = forms.CharField(
        required=False,
        label="Domain",
        max_length=100,
        help_text="As a request would send it in metadata.domain (optional).",
    )
    decision = forms.CharField(
        required=False,
        label="Decision",
        help_text="Apply this decision by name instead of matching rules (optional).",
        max_length=100,
    )
    # The editor's unsaved contents as YAML, when testing a draft; empty: the saved policy.
    draft = forms.CharField(
        required=False, widget=forms.HiddenInput, strip=False, max_length=MAX_YAML_BYTES
    )

    def passages(self) -> list[str]:
        text = self.cleaned_data["context"].replace("\r\n", "\n")
        return [p.strip() for p in text.split("\n\n") if p.strip()]
