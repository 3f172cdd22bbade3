"""Corpora: the validated corpus model, loaders (folder, .zip, JSONL, CSV, Parquet, an upload's bytes), HTML to text, and the
embedded standard-library corpus with its pydoc-like renderer.  May import ``data``."""

from .html import html_to_text
from .loaders import corpus_from_bytes, load_archive, load_corpus, load_csv, load_folder, load_jsonl, load_table
from .model import Corpus, corpus_from_frame
from .stdlib import build_stdlib_frame, stdlib_corpus
