"""ragunc: how sure is a RAG retrieval evaluation? Clusters are documents, not chunks."""

__version__ = "0.1.0"
