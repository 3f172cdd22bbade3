"""Synthetic populations with known truth, in the data contract (for teaching and tests), and the same
documents cut at several chunk sizes, per document (:func:`synthesize_chunk_sizes`).

The generative model, all of it vectorised over chunks:

* sizes: ``1 + N`` chunks with ``N`` negative binomial (gamma-Poisson), so the
  mean is ``mean_chunks`` and the coefficient of variation ``size_cv``
  (binomial when ``size_cv`` asks for less spread than Poisson);
* document rates: ``p_d ~ Beta`` around its doc_type's mean ``p_t``.  The
  ``p_t`` sit symmetrically around ``p`` so that doc_type carries
  ``doc_type_share`` of ``Var(p_d)``, and ``Var(p_d) = icc * p * (1 - p)``:
  for Bernoulli chunks that is the intraclass correlation;
* chunks of a document: a stationary two-state Markov chain with stationary
  probability ``p_d`` and lag-1 correlation ``autocorr`` (P(1|1) = p_d + phi(1 - p_d),
  P(1|0) = p_d(1 - phi)).
"""

from __future__ import annotations

import inspect
from collections.abc import Sequence

import numpy as np
import pandas as pd

from .sample import ClusterStats


def synthesize(
    *,
    n_docs: int = 1300,
    mean_chunks: float = 25.8,
    size_cv: float = 0.8,
    p: float = 0.18,
    icc: float = 0.3,
    autocorr: float = 0.17,
    doc_types: int = 4,
    doc_type_share: float = 0.126,
    config: str = "100w",
    rng: np.random.Generator | int | None = None,
) -> pd.DataFrame:
    """Chunk rows: doc_id, chunk_id, chunk_index, config, doc_type, y (0/1).

    Parameters
    ----------
    n_docs, mean_chunks, size_cv
        Number of documents and the mean and CV of their chunk counts (>= 1 each).
    p, icc
        Mean document rate and ``Var(p_d) / (p (1 - p))``.
    autocorr
        Correlation of neighbouring chunks of a document given its rate (0 <= autocorr < 1).
    doc_types, doc_type_share
        Number of (equally frequent) doc_type strata and their share of ``Var(p_d)``.
    rng
        Seed or Generator; the same seed gives the same frame.

    Notes
    -----
    These are generative parameters; the diagnostics measured on the rows differ
    in known directions: the lag-1 autocorrelation of residuals (y minus the
    document mean) sits below ``autocorr``, the ANOVA ICC above ``icc`` when
    ``autocorr > 0``, and doc_type's share of the observed document rates below
    ``doc_type_share`` (those rates carry binomial noise).

    Examples
    --------
    >>> frame = synthesize(n_docs=3000, mean_chunks=10, size_cv=0, icc=0, autocorr=0, rng=1)
    >>> round(float(frame.y.mean()), 2)
    0.18
    """
    _check(n_docs, mean_chunks, size_cv, p, icc, autocorr, doc_types, doc_type_share)
    rng = np.random.default_rng(rng)
    sizes, types, rates = _documents(n_docs, mean_chunks, size_cv, p, icc, doc_types, doc_type_share, rng)
    y, chunk_index = _markov_chunks(sizes, rates, autocorr, rng)

    doc_of_chunk = np.repeat(np.arange(n_docs), sizes)
    doc_id = _doc_names(n_docs)[doc_of_chunk]
    chunk_id = np.char.add(np.char.add(doc_id, "#"), chunk_index.astype(str))
    return pd.DataFrame(
        {
            "doc_id": doc_id,
            "chunk_id": chunk_id,
            "chunk_index": chunk_index,
            "config": config,
            "doc_type": _type_names(types, doc_types)[doc_of_chunk],
            "y": y.astype(np.int8),
        }
    )


def synthesize_chunk_sizes(
    words: Sequence[int] = (100, 50, 25, 10, 5),
    *,
    base_words: int = 100,
    rng: np.random.Generator | int | None = None,
    **population,
) -> dict[int, ClusterStats]:
    """The same synthetic documents cut at several chunk sizes: per-document statistics by words per chunk.

    ``population`` takes :func:`synthesize`'s parameters (n_docs, mean_chunks, size_cv, p, icc,
    autocorr, doc_types, doc_type_share; its defaults for the others).  The documents (lengths,
    doc_types, rates) are drawn once, as :func:`synthesize` draws them with ``mean_chunks`` chunks
    of ``base_words`` words: a document of m chunks there is ``base_words * m`` words long, and cut
    at ``w`` words it has ceil(base_words m / w) chunks.  Each size gets chunk outcomes of its own
    (the Markov chain of :func:`synthesize` over its chunks), since cutting a text anew changes its
    queries and their hits; the document rates, the part that the draw of documents samples, stay.
    At ``base_words`` the statistics are those of ``synthesize(..., rng=rng)`` per document; the
    other sizes are drawn next, finest first.

    Returns ``{w: ClusterStats}`` (config ``"<w>w"``, with chunk order and doc_type), finest first.

    Examples
    --------
    >>> cuts = synthesize_chunk_sizes((100, 5), n_docs=50, mean_chunks=4, size_cv=0, rng=1)
    >>> [int(cuts[w].n_chunks) for w in cuts]
    [4000, 200]
    """
    q, wanted = _synthesize_chunk_sizes_iv(words, base_words, population)
    rng = np.random.default_rng(rng)
    n_docs, autocorr = q["n_docs"], q["autocorr"]
    sizes, types, rates = _documents(
        n_docs, q["mean_chunks"], q["size_cv"], q["p"], q["icc"], q["doc_types"], q["doc_type_share"], rng
    )
    doc_id, doc_type = _doc_names(n_docs), _type_names(types, q["doc_types"])
    base = _markov_chunks(sizes, rates, autocorr, rng)[0]  # first, so that it is synthesize's own draw
    cuts = {}
    for w in wanted:
        m = sizes if w == base_words else -(-sizes * int(base_words) // w)
        y = base if w == base_words else _markov_chunks(m, rates, autocorr, rng)[0]
        cuts[w] = _per_document(y, m, doc_id, doc_type, f"{w}w")
    return cuts


# synthesize's parameters of a population and their defaults, read off its signature (written once).
_POPULATION = {
    name: parameter.default
    for name, parameter in inspect.signature(synthesize).parameters.items()
    if name not in ("config", "rng")
}


def _synthesize_chunk_sizes_iv(words, base_words, population) -> tuple[dict, list[int]]:
    unknown = sorted(set(population) - set(_POPULATION))
    if unknown:
        raise TypeError(
            f"synthesize_chunk_sizes() takes {', '.join(_POPULATION)} as population parameters, "
            f"not {', '.join(unknown)}"
        )
    q = {**_POPULATION, **population}
    _check(**q)
    wanted = sorted({int(w) for w in words})
    if not wanted or wanted[0] < 1 or int(base_words) != base_words or base_words < 1:
        raise ValueError(
            f"words and base_words must be positive word counts, got words={list(words)}, base_words={base_words}"
        )
    return q, wanted


def _documents(n_docs, mean_chunks, size_cv, p, icc, doc_types, doc_type_share, rng):
    """Chunks per document, doc_type index and rate of each document, in synthesize's order of draws."""
    sizes = document_sizes(n_docs, mean_chunks, size_cv, rng)
    types = rng.permutation(np.arange(n_docs) % doc_types)  # equal strata, in random order
    return sizes, types, _document_rates(types, doc_types, p, icc, doc_type_share, rng)


def _doc_names(n_docs: int) -> np.ndarray:
    return np.char.add("doc", np.char.zfill(np.arange(1, n_docs + 1).astype(str), len(str(n_docs))))


def _type_names(types: np.ndarray, doc_types: int) -> np.ndarray:
    return np.array([f"type{t + 1}" for t in range(doc_types)])[types]


def _per_document(y: np.ndarray, sizes: np.ndarray, doc_id, doc_type, config: str) -> ClusterStats:
    """Sufficient statistics of 0/1 chunks laid out document after document, in chunk order."""
    y = y.astype(np.float64)
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    last = starts + sizes - 1
    pairs = np.zeros_like(y)
    pairs[:-1] = y[:-1] * y[1:]
    pairs[last] = 0.0  # a document's last chunk has no neighbour after it
    sum_y = np.add.reduceat(y, starts)
    return ClusterStats(
        cluster_id=doc_id,
        sum_y=sum_y,
        n=sizes,
        sum_y2=sum_y,
        sum_y_next=np.add.reduceat(pairs, starts),
        first_y=y[starts],
        last_y=y[last],
        label=doc_type,
        config=config,
    )


def stratum_rates(p: float, icc: float, doc_types: int, doc_type_share: float) -> np.ndarray:
    """Mean rate of each doc_type: ``p + s * z_t`` with standardised, evenly spaced ``z_t``.

    ``s**2 = doc_type_share * icc * p * (1 - p)`` is the between-stratum variance
    of equally frequent strata.
    """
    if doc_types == 1:
        return np.array([p])
    z = np.linspace(-1.0, 1.0, doc_types)
    z /= z.std()
    return p + np.sqrt(doc_type_share * icc * p * (1 - p)) * z


def _check(n_docs, mean_chunks, size_cv, p, icc, autocorr, doc_types, doc_type_share) -> None:
    if int(n_docs) != n_docs or n_docs < 2:
        raise ValueError(f"n_docs must be an integer >= 2, got {n_docs}")
    if not mean_chunks >= 1:
        raise ValueError(f"mean_chunks must be >= 1 (every document has a chunk), got {mean_chunks}")
    if not size_cv >= 0:
        raise ValueError(f"size_cv must be >= 0, got {size_cv}")
    if mean_chunks == 1 and size_cv > 0:
        raise ValueError("size_cv must be 0 when mean_chunks is 1 (every document then has exactly one chunk)")
    if not 0 < p < 1:
        raise ValueError(f"p must be in (0, 1), got {p}")
    if not 0 <= icc < 1:
        raise ValueError(f"icc must be in [0, 1), got {icc}")
    if not 0 <= autocorr < 1:
        raise ValueError(f"autocorr must be in [0, 1), got {autocorr}")
    if int(doc_types) != doc_types or doc_types < 1:
        raise ValueError(f"doc_types must be an integer >= 1, got {doc_types}")
    if not 0 <= doc_type_share <= 1:
        raise ValueError(f"doc_type_share must be in [0, 1], got {doc_type_share}")
    means = stratum_rates(p, icc, doc_types, doc_type_share)
    within = _within_variance(p, icc, doc_types, doc_type_share)
    if means.min() <= 0 or means.max() >= 1 or np.any(within >= means * (1 - means)):
        raise ValueError(
            f"icc={icc} with doc_type_share={doc_type_share} over {doc_types} doc types is not reachable "
            f"at p={p}: stratum rates {np.round(means, 3).tolist()} leave no room for that variance; "
            "lower icc or doc_type_share"
        )


def document_sizes(n_docs: int, mean_chunks: float, size_cv: float, rng: np.random.Generator) -> np.ndarray:
    """Chunks per document, 1 + a count with mean ``mean_chunks - 1`` and coefficient of variation ``size_cv``."""
    extra = mean_chunks - 1.0
    var = (size_cv * mean_chunks) ** 2
    if extra == 0:
        return np.ones(n_docs, dtype=np.int64)
    if var > extra:  # overdispersed: negative binomial with mean `extra`, variance `var`
        shape = extra**2 / (var - extra)
        return 1 + rng.negative_binomial(shape, shape / (shape + extra), size=n_docs).astype(np.int64)
    keep = 1 - var / extra  # underdispersed: binomial(n, q), n q = extra, n q (1 - q) ~= var
    if keep <= 0:
        return 1 + rng.poisson(extra, size=n_docs).astype(np.int64)
    trials = int(np.ceil(extra / keep))
    return 1 + rng.binomial(trials, extra / trials, size=n_docs).astype(np.int64)


def _within_variance(p, icc, doc_types, doc_type_share) -> float:
    """Variance of document rates inside a doc_type: what doc_type does not explain."""
    return (1 - (doc_type_share if doc_types > 1 else 0)) * icc * p * (1 - p)


def _document_rates(types, doc_types, p, icc, doc_type_share, rng) -> np.ndarray:
    means = stratum_rates(p, icc, doc_types, doc_type_share)[types]
    within = _within_variance(p, icc, doc_types, doc_type_share)
    if within == 0:
        return means
    concentration = means * (1 - means) / within - 1  # Beta(a, b): var = mean (1 - mean) / (a + b + 1)
    return rng.beta(means * concentration, (1 - means) * concentration)


def _markov_chunks(sizes, rates, autocorr, rng):
    """0/1 chunks and their 0-based positions, every document its own stationary chain.

    The chain is "keep the previous value with probability phi, else draw afresh
    from Bernoulli(p_d)", which has exactly the transition probabilities above;
    each chunk therefore takes the fresh draw of the last renewal at or before
    it, found with one running maximum over all chunks.
    """
    n = int(sizes.sum())
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    chunk_rate = np.repeat(rates, sizes)
    fresh = rng.random(n) < chunk_rate
    renewal = rng.random(n) >= autocorr
    renewal[starts] = True  # a chain starts from its stationary distribution
    source = np.maximum.accumulate(np.where(renewal, np.arange(n), 0))
    chunk_index = np.arange(n) - np.repeat(starts, sizes)
    return fresh[source], chunk_index


def synthesize_judged(
    *,
    sensitivity: float = 0.85,
    false_positive: float = 0.10,
    judge_spread: float = 0.5,
    rng: np.random.Generator | int | None = None,
    **population,
) -> pd.DataFrame:
    """:func:`synthesize`'s chunk rows with a judge's 0/1 label ``y_judge`` beside the gold ``y``.

    The judge errs differently in every document: its sensitivity ``P(judge 1 | y = 1)``
    and false-positive rate ``P(judge 1 | y = 0)`` are drawn per document from Beta
    distributions with means ``sensitivity`` and ``false_positive`` and a standard deviation
    of ``judge_spread`` times the largest a rate with that mean can have (0: the same judge
    everywhere).  ``population`` goes to :func:`synthesize` (n_docs, mean_chunks, p, icc, ...).

    Examples
    --------
    >>> frame = synthesize_judged(n_docs=2000, mean_chunks=5, size_cv=0, p=0.2, judge_spread=0, rng=3)
    >>> round(float(frame.y_judge.mean()), 2)  # 0.2 * 0.85 + 0.8 * 0.10
    0.25
    """
    for name, value in (("sensitivity", sensitivity), ("false_positive", false_positive)):
        if not 0 < value < 1:
            raise ValueError(f"{name} must be in (0, 1), got {value}")
    if not 0 <= judge_spread < 1:
        raise ValueError(f"judge_spread must be in [0, 1), got {judge_spread}")
    rng = np.random.default_rng(rng)
    frame = synthesize(rng=rng, **population)
    doc = pd.factorize(frame["doc_id"])[0]
    n_docs = doc.max() + 1

    def rates(mean: float) -> np.ndarray:
        if judge_spread == 0:
            return np.full(n_docs, mean)
        concentration = 1 / judge_spread**2 - 1  # Beta(a, b): var = mean (1 - mean) / (a + b + 1)
        return rng.beta(mean * concentration, (1 - mean) * concentration, n_docs)

    says_yes = np.where(frame["y"].to_numpy() == 1, rates(sensitivity)[doc], rates(false_positive)[doc])
    return frame.assign(y_judge=(rng.random(len(frame)) < says_yes).astype(np.int8))
