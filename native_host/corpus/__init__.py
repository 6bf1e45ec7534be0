"""Corpus cleaning: many pages (HTML files, WARC files) in, one row per page out, on this machine or on Ray.

A job is reader -> extractor -> writer, and the engine that runs it is a choice outside those steps:

    pages.py, warc.py    the reader: input files -> `Page`s (WARC responses with their URL, charset, record id)
    rows.py              the extractor: `Page` -> row, failures included (`PageRows`), with deadline.py's limit
    columns.py           the one table of output columns, shared by every writer
    writers.py           rows -> JSON lines, Parquet, or one Parquet shard per input (written atomically)
    local.py             the local engine: worker processes on this machine
    ray_engine.py        the Ray engine, and `warc_dataset` / `ExtractBatch` for Ray pipelines of your own

Only the standard library and the runtime packages are imported here: WARC reading (FastWARC), Parquet
(pyarrow) and Ray come with `pip install 'pith[corpus]'` and are imported when a job needs them (extras.py).
"""
