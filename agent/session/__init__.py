"""Chat sessions: the append-only JSONL store, repair on load, resume, compaction, export."""
