"""Knowledge bases, their documents and the passages retrieval searches."""

from __future__ import annotations

import uuid
from typing import ClassVar

from django.contrib.postgres.indexes import GinIndex
from django.contrib.postgres.search import SearchVectorField
from django.db import models
from django.utils import timezone

from security.crypto import EncryptedApiKey
from tenants.models import Tenant


class _NamedWithPublicId(models.Model):
    """A row named by `name`, with a UUID key shown to clients as `<prefix>_<hex>`."""

    public_id_prefix: ClassVar[str]

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)

    class Meta:
        abstract = True

    def __str__(self) -> str:
        return str(getattr(self, "name", ""))

    @property
    def public_id(self) -> str:
        return f"{self.public_id_prefix}_{self.id.hex}"


class KnowledgeBase(_NamedWithPublicId):
    public_id_prefix = "kb"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="knowledge_bases")
    name = models.CharField(max_length=100)
    description = models.TextField(blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["tenant", "name"], name="uniq_kb_name_per_tenant")
        ]


class DocumentStatus(models.TextChoices):
    QUEUED = "queued"
    INDEXING = "indexing"
    READY = "ready"
    FAILED = "failed"


class _IndexedFile(models.Model):
    """An uploaded (or fetched) file and its indexing: the fields a document (the version it
    serves) and each of its versions (its history) both have."""

    name = models.CharField(max_length=255)
    content_type = models.CharField(max_length=100)
    size_bytes = models.PositiveIntegerField()
    sha256 = models.CharField(max_length=64)
    # The file: a document keeps it until it is indexed again (a replace, a retry); a version
    # fetched from `source_url` has it empty until the index worker fetched it.
    raw = models.BinaryField()
    #: where the index worker fetches the file from (ingestion from a URL); empty for uploads
    source_url = models.URLField(max_length=2000, blank=True, default="")
    error = models.TextField(blank=True, default="")
    text = models.TextField(blank=True, default="")  # the extracted text passages point into
    language = models.CharField(max_length=8, blank=True, default="")  # most of its text's
    #: Said when indexed (a language the detector cannot check, ...), shown with the document
    #: (a version's are copied to the document when it is served).
    warnings = models.JSONField(default=list, blank=True)
    passages_total = models.PositiveIntegerField(default=0)
    passages_done = models.PositiveIntegerField(default=0)
    attempts = models.PositiveIntegerField(default=0)
    lease_expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    updated_at = models.DateTimeField(default=timezone.now)
    indexed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        abstract = True


class Document(_NamedWithPublicId, _IndexedFile):
    public_id_prefix = "doc"

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="documents")
    knowledge_base = models.ForeignKey(
        KnowledgeBase, on_delete=models.CASCADE, related_name="documents"
    )
    #: Bumped by every replace; passages of older versions are swapped out when it is indexed.
    version = models.PositiveIntegerField(default=1)
    status = models.CharField(
        max_length=16, choices=DocumentStatus.choices, default=DocumentStatus.QUEUED
    )
    #: The tenant's own key/value pairs (`knowledge.metadata`): filters for search and verifying.
    metadata = models.JSONField(default=dict, blank=True)

    class Meta:
        indexes = [
            models.Index(fields=["status", "lease_expires_at"], name="doc_status_lease"),
            GinIndex(fields=["metadata"], opclasses=["jsonb_path_ops"], name="doc_metadata_gin"),
        ]


class VersionStatus(models.TextChoices):
    QUEUED = "queued"
    INDEXING = "indexing"
    READY = "ready"
    FAILED = "failed"
    #: a newer version was uploaded before this one was indexed; it was never served
    SUPERSEDED = "superseded"


class DocumentVersion(_IndexedFile):
    """One upload of a document (the first, a replacement, a restore), kept as its history.

    Indexing works on a version; the document row holds the version it serves, which
    changes only when a newer version is ready (in the transaction that swaps the
    passages). A version that fails stays here with its error; the document keeps
    serving the one before.
    """

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="versions")
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    number = models.PositiveIntegerField()
    status = models.CharField(
        max_length=16, choices=VersionStatus.choices, default=VersionStatus.QUEUED
    )
    #: the version whose bytes a restore copied
    restored_from = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["document", "number"], name="uniq_doc_version")
        ]
        indexes = [models.Index(fields=["status", "lease_expires_at"], name="docver_status_lease")]

    def __str__(self) -> str:
        return f"{self.document_id} v{self.number}"


class Passage(models.Model):
    """A chunk of a document's extracted text, with its offsets in that text."""

    document = models.ForeignKey(Document, on_delete=models.CASCADE, related_name="passages")
    # Copied from the document so retrieval filters one table.
    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    knowledge_base = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="+")
    version = models.PositiveIntegerField(default=1)
    position = models.PositiveIntegerField()
    start = models.PositiveIntegerField()
    end = models.PositiveIntegerField()
    text = models.TextField()
    #: The Postgres text-search configuration of its language ("english", "german", "simple").
    config = models.CharField(max_length=32, default="simple")
    tsv = SearchVectorField(null=True)
    embedding = models.BinaryField()  # float32, unit length (the MiniLM encoder)
    #: where the passage starts in the original file: {"page": 3} (PDF) or
    #: {"headings": ["Install", "On Linux"]} (Markdown, HTML); empty when the format has neither
    location = models.JSONField(default=dict, blank=True)

    class Meta:
        indexes = [
            # One tenant's knowledge base and language, then the words (btree_gin): a search
            # reads only that knowledge base's postings, never another tenant's.
            GinIndex(fields=["knowledge_base", "config", "tsv"], name="passage_scoped_tsv_gin"),
            models.Index(fields=["knowledge_base", "document"], name="passage_kb_doc"),
        ]

    def __str__(self) -> str:
        return f"{self.document_id} #{self.position}"


class TermStat(models.Model):
    """How many passages of a knowledge base hold a lexeme (its document frequency).

    Kept by database triggers on `knowledge_passage` (migration 0002), so inserts,
    re-indexing and deletes (cascades included) keep it exact in the same
    transaction. Retrieval reads it to start from a claim's rarest words and to
    weight each word by its inverse document frequency. The row with the empty
    lexeme counts the knowledge base's passages (no real lexeme is empty).
    """

    tenant = models.ForeignKey(Tenant, on_delete=models.CASCADE, related_name="+")
    knowledge_base = models.ForeignKey(KnowledgeBase, on_delete=models.CASCADE, related_name="+")
    config = models.CharField(max_length=32)
    lexeme = models.TextField()
    ndoc = models.IntegerField(default=0)

    class Meta:
        constraints = [
            models.UniqueConstraint(
                fields=["knowledge_base", "config", "lexeme"], name="uniq_term_per_kb_config"
            )
        ]

    def __str__(self) -> str:
        return f"{self.lexeme!r}: {self.ndoc}"


class SearchProvider(models.TextChoices):
    TAVILY = "tavily"
    SERPER = "serper"


class WebSearchSettings(EncryptedApiKey, models.Model):
    """A tenant's web search provider; the key is encrypted at rest like LLM keys."""

    tenant = models.OneToOneField(Tenant, on_delete=models.CASCADE, related_name="web_search")
    provider = models.CharField(max_length=16, choices=SearchProvider.choices)
    api_base = models.URLField(blank=True, default="", help_text="empty: the provider's own")
    api_key_encrypted = models.TextField(blank=True, default="")
    price_per_query_usd = models.DecimalField(max_digits=10, decimal_places=6, default=0)
    timeout_seconds = models.FloatField(default=10.0)
    max_results = models.PositiveSmallIntegerField(default=5)

    def __str__(self) -> str:
        return f"{self.provider} for {self.tenant}"
