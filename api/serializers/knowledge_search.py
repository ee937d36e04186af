"""Searching a knowledge base, and a document's text and passages
(`api/views/knowledge_search.py`)."""

from __future__ import annotations

from rest_framework import serializers

from knowledge.metadata import MetadataError, clean_filter
from knowledge.models import Passage
from knowledge.retrieval import MIN_SIMILARITY

from ..strict import StrictTypes


class SearchRequestSerializer(StrictTypes, serializers.Serializer):
    query = serializers.CharField(max_length=5000, help_text="a claim, as a verification has it")
    top_k = serializers.IntegerField(required=False, default=10, min_value=1, max_value=50)
    evidence_threshold = serializers.FloatField(
        required=False,
        default=MIN_SIMILARITY,
        min_value=-1,
        max_value=1,
        help_text="the cosine from which a passage counts as evidence (as in verifying)",
    )
    metadata = serializers.JSONField(
        required=False, default=dict, help_text='document filter: {"key": value or [values]}'
    )

    def validate_metadata(self, value):
        try:
            return clean_filter(value)
        except MetadataError as exc:
            raise serializers.ValidationError(str(exc)) from exc


class SearchHitSerializer(serializers.Serializer):
    rank = serializers.IntegerField()
    passage = serializers.IntegerField()
    document = serializers.CharField()
    document_name = serializers.CharField()
    start = serializers.IntegerField(help_text="offsets in the document's extracted text")
    end = serializers.IntegerField()
    text = serializers.CharField()
    similarity = serializers.FloatField(help_text="cosine with the query (the encoder's)")
    evidence = serializers.BooleanField(help_text="similarity >= evidence_threshold")


class SearchResultSerializer(serializers.Serializer):
    query = serializers.CharField()
    evidence_threshold = serializers.FloatField()
    passages = SearchHitSerializer(many=True)


class DocumentTextSerializer(serializers.Serializer):
    id = serializers.CharField()
    version = serializers.IntegerField()
    language = serializers.CharField()
    text = serializers.CharField(help_text="the extracted text passages' offsets point into")


class PassageSerializer(serializers.ModelSerializer):
    class Meta:
        model = Passage
        fields = ["id", "position", "start", "end", "text", "config", "version"]
        read_only_fields = fields
