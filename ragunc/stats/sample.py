"""The design object: per-cluster sufficient statistics of one config (a cluster is a document, in ragunc).

The names are the design's, neutral as R survey's ``ids``: a cluster id, its label, and per cluster the
count ``n`` and the sums ``sum_y``, ``sum_y2``, ``sum_y_next``, as in the per-document file format
(:mod:`ragunc.data.per_document`), whose ``chunks`` column is ``n``.  A population is the clusters
of a whole corpus; :func:`draw_sample` draws a sample of them; both are :class:`ClusterStats`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

import numpy as np

# ClusterStats' per-cluster arrays and their dtypes (None: keep as given).
_PER_CLUSTER = {
    "cluster_id": None,
    "sum_y": np.float64,
    "n": np.int64,
    "sum_y2": np.float64,
    "sum_y_next": np.float64,
    "first_y": np.float64,
    "last_y": np.float64,
    "label": None,
}


@dataclass(frozen=True)
class ClusterStats:
    """Per-cluster sufficient statistics of one config: a population, or a sample drawn from it.

    All arrays have one entry per cluster (document), in the same order; each is named after its
    column of the per-document file format, except ``n``, the file's ``chunks``.
    """

    cluster_id: np.ndarray  # (K,) str: the file's doc_id
    sum_y: np.ndarray  # (K,) float64: sum of y over the cluster's units (hits for 0/1 y)
    n: np.ndarray  # (K,) int64: m_d, the cluster's number of units (chunks)
    sum_y2: np.ndarray  # (K,) float64: sum of y**2 (== sum_y for 0/1 y)
    sum_y_next: np.ndarray | None = None  # (K,) sum of y_i*y_{i+1} over neighbouring chunk_index; None without it
    first_y: np.ndarray | None = None  # (K,) y of the cluster's first unit (by chunk_index)
    last_y: np.ndarray | None = None  # (K,) y of the cluster's last unit
    label: np.ndarray | None = None  # (K,) str: the cluster's category (the file's doc_type, a stratum), or None
    population_docs: int | None = None  # D, when the population's cluster count is known (FPC)
    config: str = "default"

    def __post_init__(self) -> None:
        # The loader is the data boundary; this only guards programmatic callers
        # against arrays of the wrong shape, cheaply.
        for name, dtype in _PER_CLUSTER.items():
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, np.asarray(value, dtype=dtype))
        if self.sum_y.ndim != 1:
            raise ValueError(f"sum_y must be 1-D (one entry per cluster), got shape {self.sum_y.shape}")
        k = self.sum_y.shape[0]
        for name in _PER_CLUSTER:
            value = getattr(self, name)
            if value is not None and value.shape != (k,):
                raise ValueError(f"{name} has shape {value.shape}, expected ({k},) like sum_y")
        if k and self.n.min() < 1:
            bad = np.flatnonzero(self.n < 1)[:5].tolist()
            raise ValueError(f"n must be >= 1 unit (chunk) per cluster; clusters at positions {bad} are not")
        if self.population_docs is not None and self.population_docs < k:
            raise ValueError(f"population_docs={self.population_docs} is smaller than the {k} sampled clusters")

    @property
    def binary(self) -> bool:
        """Every y is 0 or 1, read off the sums (see :func:`zero_one`): never a flag to set."""
        return bool(zero_one(self.sum_y, self.sum_y2).all())

    @property
    def n_docs(self) -> int:
        """K, the number of clusters (documents)."""
        return int(self.sum_y.shape[0])

    @property
    def n_chunks(self) -> int:
        return int(self.n.sum())

    @property
    def fpc(self) -> float:
        """The finite-population correction 1 - K/D of this sample (1 when D is unknown)."""
        return finite_population_correction(self.n_docs, self.population_docs)

    def with_population(self, population_docs: int | None) -> "ClusterStats":
        """The same statistics with a known (or unknown: None) population cluster count."""
        return dataclasses.replace(self, population_docs=population_docs)

    def subset(self, index: np.ndarray) -> "ClusterStats":
        """The clusters at ``index`` (positions or a boolean mask), keeping population_docs."""
        index = np.asarray(index)
        pick = {name: getattr(self, name) for name in _PER_CLUSTER}
        return dataclasses.replace(
            self, **{name: None if value is None else value[index] for name, value in pick.items()}
        )


def zero_one(sum_y, sum_y2):
    """Whether every y of each row (documents on the last axis) is 0 or 1, from per-document sums.

    For y in [0, 1] (the data contract), y**2 <= y with equality only at 0 and 1, so a
    document's sum of squares equals its sum exactly when all its chunks are 0/1.
    """
    return np.all(np.asarray(sum_y2) == np.asarray(sum_y), axis=-1)


def finite_population_correction(k: int, population_docs: int | None) -> float:
    """1 - K/D for K documents drawn without replacement from D; 1 when D is unknown."""
    return 1.0 if population_docs is None else 1.0 - k / population_docs


def require_documents(sample: ClusterStats, at_least: int = 2) -> None:
    if sample.n_docs < at_least:
        raise ValueError(f"need at least {at_least} documents for a between-document variance, got {sample.n_docs}")


def check_k(k, population_docs: int, *, least: int = 2, most: int | None = None) -> None:
    """The one check of K, the documents a sample takes, for every public entry: a whole number from
    ``least`` to ``most`` (default: all ``population_docs`` documents), in one message."""
    most = population_docs if most is None else most
    if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or not least <= k <= most:
        raise ValueError(
            f"k must be a whole number of documents from {least} to {most} of the population's {population_docs}, "
            f"got {k!r}"
        )


def draw_sample(population: ClusterStats, k: int, rng: np.random.Generator | int | None = None) -> ClusterStats:
    """K of the population's D documents drawn without replacement, uniformly (seeded by ``rng``).

    The population is the whole corpus of D documents, so the sample carries
    ``population_docs = D`` and every interval on it applies the finite-population
    correction 1 - K/D.  The documents keep the population's order.
    """
    d = population.n_docs
    check_k(k, d, least=1)
    # O(K) for K small beside D (numpy draws a set of K indices, Floyd's way, rather than permuting
    # all D): a K-slider move on a million documents costs milliseconds.  No shuffle: sorted anyway.
    chosen = np.random.default_rng(rng).choice(d, size=k, replace=False, shuffle=False)
    return population.subset(np.sort(chosen)).with_population(d)


def nested_orders(d: int, reps: int, rng: np.random.Generator | int | None = None) -> np.ndarray:
    """``reps`` uniform permutations of range(d), one per row (seeded by ``rng``): nested samples and repetitions.

    A row's first K documents are a uniform K-subset and its first K + 1 add one document to
    them.  The rows are nested too: the stream fills them one after another, so the first r
    rows are those ``reps=r`` gives.
    """
    return np.random.default_rng(rng).permuted(np.broadcast_to(np.arange(d), (reps, d)), axis=1)


def nested_sample(population: ClusterStats, k: int, *, seed: int = 0) -> ClusterStats:
    """The first K documents of the seeded permutation ``nested_orders(D, 1, seed)[0]`` (population_docs = D).

    A larger K adds documents to a smaller one's sample; otherwise as :func:`draw_sample`
    (uniform over K-subsets, the documents in the population's order).
    """
    d = population.n_docs
    check_k(k, d, least=1)
    return population.subset(np.sort(nested_orders(d, 1, seed)[0, :k])).with_population(d)


def document_rates(sample: ClusterStats) -> np.ndarray:
    """Each document's rate: the mean of y over its chunks (its hit rate for 0/1 y)."""
    return sample.sum_y / sample.n
