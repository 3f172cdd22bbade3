"""Which documents dominate a sample: each document's share of the chunks, its leverage, and G*.

In the chunk-level regression ``y = beta + u`` clustered by document (the micro rate), document
d's partial leverage for the intercept is ``m_d / N``, its share of the chunks: how far the
estimate moves with that document's residuals (MacKinnon, Nielsen & Webb 2023).  For the macro
mean every document is one row: leverage ``1 / K``.  The effective number of documents G*
(Carter, Schnepel & Steigerwald 2017) is ``K / (1 + Gamma)``, Gamma the squared coefficient of
variation (over the K documents) of ``gamma_d = m_d (1 + rho (m_d - 1))``, each document's
contribution to the variance when chunks of a document correlate by ``rho``; that is
``(sum gamma)^2 / sum gamma^2``.  G* is K for equal documents and falls towards 1 as one
document takes over.  It is reported at the sample's ICC (clipped to [0, 1]) and at the two
ends, rho = 0 (chunks independent: Kish's ``N^2 / sum m^2``) and rho = 1 (documents as units).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .diagnostics import icc_anova
from .linearization import check_options
from .sample import ClusterStats, require_documents


def effective_documents(n, rho=0.0, estimator: str = "micro"):
    """G*, the effective number of documents (Carter, Schnepel & Steigerwald 2017), batch-wise (documents last).

    ``(sum gamma)^2 / sum gamma^2`` with ``gamma_d = m_d (1 + rho (m_d - 1))``; K for the macro mean.
    """
    n = np.asarray(n, dtype=float)
    if estimator == "macro":
        return np.full(n.shape[:-1], float(n.shape[-1]))[()]
    rho = np.asarray(rho, dtype=float)[..., None]
    gamma = n * (1 + rho * (n - 1))
    return (gamma.sum(-1) ** 2 / (gamma**2).sum(-1))[()]


def leverages(n, estimator: str = "micro"):
    """Each document's partial leverage for the estimate, batch-wise: ``m_d / N`` (micro) or ``1 / K`` (macro)."""
    n = np.asarray(n, dtype=float)
    if estimator == "macro":
        return np.full(n.shape, 1 / n.shape[-1])
    return n / n.sum(-1, keepdims=True)


@dataclass(frozen=True)
class Leverage:
    """One sample's leverage diagnostics; the per-document arrays are in the sample's order."""

    estimator: str
    doc_id: np.ndarray
    chunk_share: np.ndarray  # m_d / N
    leverage: np.ndarray  # partial leverage for the estimate (micro: the chunk share; macro: 1/K)
    g_star: float  # effective number of documents at the sample's ICC (clipped to [0, 1])
    g_star_rho0: float  # ... with chunks independent
    g_star_rho1: float  # ... with each document one unit
    rho: float  # the ICC G* used
    max_leverage: float

    @property
    def n_docs(self) -> int:
        return self.doc_id.size

    def dominant(self, n: int | None = None) -> np.ndarray:
        """Indices of the documents by leverage, largest first (the first ``n``); ties in the sample's order."""
        order = np.argsort(-self.leverage, kind="stable")
        return order if n is None else order[:n]

    def to_dict(self) -> dict:
        """The JSON's ``leverage``: the summary and every document, largest leverage first."""
        return {
            "g_star": self.g_star,
            "g_star_rho0": self.g_star_rho0,
            "g_star_rho1": self.g_star_rho1,
            "rho": self.rho,
            "max_leverage": self.max_leverage,
            "documents": [
                {
                    "doc_id": str(self.doc_id[i]),
                    "chunk_share": float(self.chunk_share[i]),
                    "leverage": float(self.leverage[i]),
                }
                for i in self.dominant()
            ],
        }


def leverage(sample: ClusterStats, *, estimator: str = "micro") -> Leverage:
    """The leverage diagnostics of one sample (see the module docstring)."""
    check_options(estimator)
    require_documents(sample)
    n = np.asarray(sample.n, dtype=float)
    icc = icc_anova(sample.sum_y, sample.n, sample.sum_y2)
    rho = float(np.clip(icc, 0.0, 1.0)) if np.isfinite(icc) else 0.0
    lev = leverages(n, estimator)
    return Leverage(
        estimator=estimator,
        doc_id=np.asarray(sample.cluster_id),
        chunk_share=n / n.sum(),
        leverage=lev,
        g_star=float(effective_documents(n, rho, estimator)),
        g_star_rho0=float(effective_documents(n, 0.0, estimator)),
        g_star_rho1=float(effective_documents(n, 1.0, estimator)),
        rho=rho,
        max_leverage=float(lev.max()),
    )
