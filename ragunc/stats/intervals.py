"""``interval_report``: every interval and diagnostic for one sample (what ``ragunc interval`` prints).

The orchestrator sits above both the linearization and the bootstrap."""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .bootstrap import BootstrapResult, cluster_bootstrap
from .diagnostics import Diagnostics, diagnostics
from .linearization import IntervalEstimate, check_options, interval_arrays
from .sample import ClusterSample, require_documents


@dataclass(frozen=True)
class IntervalReport:
    """Everything ``ragunc interval`` prints."""

    estimator: str
    estimate: float
    n_docs: int
    n_chunks: int
    level: float
    naive: IntervalEstimate  # Wald binomial over chunks
    wilson: IntervalEstimate  # Wilson over chunks (se None)
    cluster: IntervalEstimate  # linearization, normal, FPC if population_docs is known
    cluster_t: IntervalEstimate  # linearization with t(K-1)
    bootstrap: BootstrapResult
    diagnostics: Diagnostics
    cluster_wilson: IntervalEstimate | None = None  # Wilson with n_eff = p(1-p)/v and a t(K-1) critical value
    population_docs: int | None = None  # D used for the FPC (None: no FPC)

    def to_dict(self) -> dict:
        """The JSON contract of ``ragunc interval`` (plus extra keys)."""
        d = self.diagnostics
        return {
            "estimator": self.estimator,
            "estimate": self.estimate,
            "n_docs": self.n_docs,
            "n_chunks": self.n_chunks,
            "level": self.level,
            "population_docs": self.population_docs,
            "naive": self.naive.to_dict(),
            "wilson": {"ci": list(self.wilson.ci)},
            "cluster": self.cluster.to_dict(),
            "cluster_t": self.cluster_t.to_dict(),
            "cluster_wilson": None if self.cluster_wilson is None else {"ci": list(self.cluster_wilson.ci)},
            "bootstrap": self.bootstrap.to_dict(),
            "deff": d.deff,
            "icc": d.icc,
            "n_eff": d.n_eff,
            "diagnostics": d.to_dict(),
        }



def interval_report(
    sample: ClusterSample,
    *,
    estimator: str = "micro",
    level: float = 0.95,
    boot: int = 1000,
    rng: np.random.Generator | int | None = None,
) -> IntervalReport:
    """All intervals and diagnostics for one sample (what ``ragunc interval`` prints)."""
    # bootstrap.py builds on this module's dataclasses, hence the local import.

    check_options(estimator, level)
    require_documents(sample)
    arr = interval_arrays(
        sample.total, sample.size, sample.sumsq,
        estimator=estimator, level=level, binary=sample.binary, fpc=sample.fpc,
    )

    def method(name: str) -> IntervalEstimate:
        se = arr.se[name]
        return IntervalEstimate(
            name, None if se is None else float(se), (float(arr.lower[name]), float(arr.upper[name]))
        )

    return IntervalReport(
        estimator=estimator,
        estimate=float(arr.estimate),
        n_docs=sample.n_docs,
        n_chunks=sample.n_chunks,
        level=level,
        naive=method("naive"),
        wilson=method("wilson"),
        cluster=method("cluster"),
        cluster_t=method("cluster_t"),
        bootstrap=cluster_bootstrap(sample, estimator=estimator, level=level, reps=boot, rng=rng),
        diagnostics=diagnostics(sample, estimator=estimator),
        cluster_wilson=method("cluster_wilson"),
        population_docs=sample.population_docs,
    )

