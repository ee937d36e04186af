"""Datasets of labelled answers (`api/views/datasets.py`)."""

from __future__ import annotations

from rest_framework import serializers
from rest_framework.exceptions import ValidationError

from quality.models import Dataset

from ..strict import StrictTypes


class DatasetSerializer(serializers.ModelSerializer):
    id = serializers.CharField(source="public_id", read_only=True)

    class Meta:
        model = Dataset
        fields = ["id", "name", "version", "source", "size", "created_at"]
        read_only_fields = fields


class DatasetCreateSerializer(StrictTypes, serializers.Serializer):
    """`file` (multipart) or `content` with `format`; or `source`: review | feedback."""

    name = serializers.RegexField(r"^[\w.-]{1,100}$", max_length=100)
    source = serializers.ChoiceField(choices=["upload", "review", "feedback"], default="upload")
    format = serializers.ChoiceField(choices=["jsonl", "csv"], required=False)
    file = serializers.FileField(required=False)
    content = serializers.CharField(required=False, trim_whitespace=False)

    def validate(self, attrs):
        if attrs["source"] != "upload":
            return attrs
        f = attrs.get("file")
        if f is None and "content" not in attrs:
            raise ValidationError({"file": "upload a file, or send format and content."})
        if "format" not in attrs:
            name = (getattr(f, "name", "") or "").lower()
            guessed = next((k for k in ("jsonl", "csv") if name.endswith("." + k)), None)
            if guessed is None:
                raise ValidationError({"format": "say jsonl or csv (or name the file so)."})
            attrs["format"] = guessed
        return attrs

    def raw(self) -> bytes:
        f = self.validated_data.get("file")
        return f.read() if f is not None else self.validated_data["content"].encode()
