"""The design object: per-document sufficient statistics of one config (documents = clusters)."""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

# ClusterSample's per-document arrays and their dtypes (None: keep as given).
_PER_DOCUMENT = {
    "doc_id": None, "total": np.float64, "size": np.int64, "sumsq": np.float64,
    "lag_cross": np.float64, "first": np.float64, "last": np.float64, "doc_type": None,
}


@dataclass(frozen=True)
class ClusterSample:
    """Per-document sufficient statistics of one config (the design object).

    All arrays have one entry per document, in the same order.
    """

    doc_id: np.ndarray  # (K,) str
    total: np.ndarray  # (K,) float64: sum of y over the document's chunks (hits for 0/1 y)
    size: np.ndarray  # (K,) int64: m_d, number of chunks
    sumsq: np.ndarray  # (K,) float64: sum of y**2 (== total for 0/1 y)
    lag_cross: np.ndarray | None = None  # (K,) sum of y_i*y_{i+1} over neighbouring chunk_index; None without chunk_index
    first: np.ndarray | None = None  # (K,) y of the document's first chunk (by chunk_index)
    last: np.ndarray | None = None  # (K,) y of the document's last chunk
    doc_type: np.ndarray | None = None  # (K,) str stratum, or None
    population_docs: int | None = None  # D, when the population's document count is known (FPC)
    config: str = "default"

    def __post_init__(self) -> None:
        # The loader is the data boundary; this only guards programmatic callers
        # against arrays of the wrong shape, cheaply.
        for name, dtype in _PER_DOCUMENT.items():
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, np.asarray(value, dtype=dtype))
        if self.total.ndim != 1:
            raise ValueError(f"total must be 1-D (one entry per document), got shape {self.total.shape}")
        k = self.total.shape[0]
        for name in _PER_DOCUMENT:
            value = getattr(self, name)
            if value is not None and value.shape != (k,):
                raise ValueError(f"{name} has shape {value.shape}, expected ({k},) like total")
        if k and self.size.min() < 1:
            bad = np.flatnonzero(self.size < 1)[:5].tolist()
            raise ValueError(f"size must be >= 1 chunk per document; documents at positions {bad} are not")
        if self.population_docs is not None and self.population_docs < k:
            raise ValueError(f"population_docs={self.population_docs} is smaller than the {k} sampled documents")

    @property
    def binary(self) -> bool:
        """Every y is 0 or 1, read off the sums (see :func:`zero_one`): never a flag to set."""
        return bool(zero_one(self.total, self.sumsq).all())

    @property
    def n_docs(self) -> int:
        return int(self.total.shape[0])

    @property
    def n_chunks(self) -> int:
        return int(self.size.sum())

    @property
    def fpc(self) -> float:
        """The finite-population correction 1 - K/D of this sample (1 when D is unknown)."""
        return finite_population_correction(self.n_docs, self.population_docs)

    def with_population(self, population_docs: int | None) -> "ClusterSample":
        """The same sample with a known (or unknown: None) population document count."""
        return dataclasses.replace(self, population_docs=population_docs)

    def subset(self, index: np.ndarray) -> "ClusterSample":
        """The documents at ``index`` (positions or a boolean mask), keeping population_docs."""
        index = np.asarray(index)
        pick = {name: getattr(self, name) for name in _PER_DOCUMENT}
        return dataclasses.replace(
            self, **{name: None if value is None else value[index] for name, value in pick.items()}
        )



def zero_one(total, sumsq):
    """Whether every y of each row (documents on the last axis) is 0 or 1, from per-document sums.

    For y in [0, 1] (the data contract), y**2 <= y with equality only at 0 and 1, so a
    document's sum of squares equals its total exactly when all its chunks are 0/1.
    """
    return np.all(np.asarray(sumsq) == np.asarray(total), axis=-1)


def finite_population_correction(k: int, population_docs: int | None) -> float:
    """1 - K/D for K documents drawn without replacement from D; 1 when D is unknown."""
    return 1.0 if population_docs is None else 1.0 - k / population_docs



def require_documents(sample: ClusterSample, at_least: int = 2) -> None:
    if sample.n_docs < at_least:
        raise ValueError(
            f"need at least {at_least} documents for a between-document variance, got {sample.n_docs}"
        )



def draw_sample(population: ClusterSample, k: int, rng: np.random.Generator | int | None = None) -> ClusterSample:
    """K of the population's D documents drawn without replacement, uniformly (seeded by ``rng``).

    The population is the whole corpus of D documents, so the sample carries
    ``population_docs = D`` and every interval on it applies the finite-population
    correction 1 - K/D.  The documents keep the population's order.
    """
    d = population.n_docs
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not 1 <= k <= d:
        raise ValueError(f"k must be a whole number of documents from 1 to the population's {d}, got {k!r}")
    # O(K) for K small beside D (numpy draws a set of K indices, Floyd's way, rather than permuting
    # all D): a K-slider move on a million documents costs milliseconds.  No shuffle: sorted anyway.
    chosen = np.random.default_rng(rng).choice(d, size=k, replace=False, shuffle=False)
    return population.subset(np.sort(chosen)).with_population(d)


def document_rates(sample: ClusterSample) -> np.ndarray:
    """Each document's rate: the mean of y over its chunks (its hit rate for 0/1 y)."""
    return sample.total / sample.size
