"""What an upload may be: its size (``server.maxUploadSize``), what it may unpack to, and what a message about it
may say (the file's name, never a path on the server).

The caps go to the library's readers as :class:`ragunc.data.ReadLimits`: a compressed upload is
decompressed as a stream and refused the moment it passes one, before memory or disk fills.
"""

from __future__ import annotations

import re
import tempfile

import streamlit as st

from ragunc.data import ReadLimits

MB = 2**20
# Per-chunk results, runs, qrels, audits: rows of a few fields each.
TABLE_LIMITS = ReadLimits(max_bytes=512 * MB, max_rows=5_000_000, max_line_bytes=1 * MB)
# Corpora: what the pipeline chunks, queries and ranks in seconds here; one document may fill a long line.
CORPUS_LIMITS = ReadLimits(max_bytes=100 * MB, max_rows=1_000_000, max_line_bytes=8 * MB)


def max_upload_mb() -> int:
    """The server's upload limit in MB (``server.maxUploadSize``, set in .streamlit/config.toml)."""
    return int(st.get_option("server.maxUploadSize"))


def limits_help(limits: ReadLimits, upload_mb: int | None = None) -> str:
    """The sentence each uploader's help states its limits in."""
    return (
        f"Up to {upload_mb or max_upload_mb()} MB per file; a .gz or .zip may unpack to at most "
        f"{limits.max_bytes // MB:,} MB and {limits.max_rows:,} rows."
    )


def public_message(message: str, name: str) -> str:
    """``message`` with every temporary path (where the app spools an upload) replaced by the upload's ``name``."""
    folder = re.escape(tempfile.gettempdir().rstrip("/"))
    return re.sub(folder + r"/[^\s'\":,)]*", name, str(message))
