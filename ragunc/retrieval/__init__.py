"""Retrieval: a corpus analysed into units and terms (by its language's analyser), chunking, sparse
BM25, simulated known-item queries, and the chunk → query → BM25 → per-chunk-results pipeline.  May import ``data``, ``stats`` and ``corpus``."""

from .bm25 import BM25Index, Tokenizer, bm25_index, tokenize, top_k
from .chunking import Chunks, chunk_corpus, chunk_text
from .known_item import QueryModel, QuerySet, read_query_file, simulate_known_item
from .pipeline import ChunkEval, chunk_eval, chunk_eval_parts, prepare_retrieval, qrels, top_k_run
from .tokens import CorpusTokens, tokenize_corpus
