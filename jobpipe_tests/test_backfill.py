"""A Dagster backfill of a past day through the ingest assets never rolls a job back (issue 12)."""

from __future__ import annotations

import json
from datetime import timedelta

from dagster import DagsterInstance, materialize

from jobpipe.db import connect
from jobpipe.embedding import TokenHashEmbedder
from jobpipe.normalize.store import normalize_fetch
from jobpipe.orchestration.definitions import ASSETS
from jobpipe.orchestration.partitions import SOURCES_PARTITION, partition_key, today
from jobpipe.orchestration.resources import PostgresResource, SourcesResource, build_resources
from jobpipe.sources import load_sources, run_source
from jobpipe.store import sync_job_embeddings
from jobpipe.store.curate import curate_fetch
from jobpipe_tests.lifecycle import job, row


class Counting(TokenHashEmbedder):
    def __init__(self):
        super().__init__(16)
        self.texts: list[str] = []

    def embed_documents(self, texts):
        self.texts.extend(texts)
        return super().embed_documents(texts)


def test_backfilling_day_one_keeps_day_two_content_and_embeds_nothing(db, database, tmp_path):
    drop = tmp_path / "drop.jsonl"
    drop.touch()
    sources = tmp_path / "sources.yaml"
    sources.write_text("sources:\n  - {name: drop, kind: file, path: drop.jsonl}\n", encoding="utf-8")
    (config,) = load_sources(sources)
    day1, day2 = today() - timedelta(days=2), today() - timedelta(days=1)
    for day, title in ((day1, "Title A"), (day2, "Title B")):
        drop.write_text(json.dumps(row(1, title=title)) + "\n" + json.dumps(row(2)) + "\n", encoding="utf-8")
        run_source(db, config, day)
        normalize_fetch(db, "drop", day)
        curate_fetch(db, "drop", day)
    sync_job_embeddings(db, Counting())
    before = job(db, "p1")
    assert before["title"] == "Title B"

    instance = DagsterInstance.ephemeral()
    instance.add_dynamic_partitions(SOURCES_PARTITION, ["drop"])
    ingest = [a for a in ASSETS if a.key.path[-1] in ("raw_postings", "normalized_postings", "curated_jobs")]
    result = materialize(ASSETS, selection=ingest, partition_key=partition_key("drop", day1), instance=instance,
                         resources={**build_resources(), "postgres": PostgresResource(database_url=database),
                                    "sources": SourcesResource(path=str(sources))})
    assert result.success
    with connect(database) as conn:
        assert job(conn, "p1") == before              # still Title B, not even a new row version
        again = Counting()
        assert sync_job_embeddings(conn, again).embedded == 0 and again.texts == []
