"""The registry of interval methods: one record per method, read by everything that lists methods.

``interval_report``, the coverage experiment, the CLI tables and JSON, the figures and the
HTML summary all walk :data:`METHODS` (in its order, the display order) and look a method
up by its name; none of them lists methods of its own.  A method's result is one
:class:`IntervalEstimate` under its name (``report.interval("bootstrap_bca")``), as
``scipy.stats.bootstrap`` takes the method as a parameter rather than naming fields after it.

Adding a method is one kernel and one entry here.  A kernel is batch-wise and returns
``(se or None, lower, upper)``: an analytic one reads a
:class:`~ragunc.stats.linearization.Linearized`, a bootstrap one (family
``cluster-bootstrap``) the :class:`~ragunc.stats.bootstrap.Replicates` that every bootstrap
method of the run shares, the wild bootstrap (``wild-bootstrap``) its
:class:`~ragunc.stats.wild.WildReplicates`.  Undefined bounds are NaN, never a number standing in for one.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import NamedTuple

from . import bootstrap, linearization, wild

NAIVE = "naive"  # chunks taken as independent
CLUSTER_ANALYTIC = "cluster-analytic"  # documents as clusters, closed form (linearization)
CLUSTER_BOOTSTRAP = "cluster-bootstrap"  # documents resampled with replacement
WILD_BOOTSTRAP = "wild-bootstrap"  # documents' scores reweighted, the null imposed (stats.wild)
FAMILIES = (NAIVE, CLUSTER_ANALYTIC, CLUSTER_BOOTSTRAP, WILD_BOOTSTRAP)


class ConfidenceInterval(NamedTuple):
    """Bounds of one interval (NaN where undefined); unpacks as ``low, high``."""

    low: float
    high: float


@dataclass(frozen=True)
class IntervalEstimate:
    """One interval method's result: its name, its SE (None when the method has none) and its interval."""

    method: str
    se: float | None
    ci: ConfidenceInterval

    def __post_init__(self) -> None:
        object.__setattr__(self, "ci", ConfidenceInterval(*self.ci))

    def to_dict(self) -> dict:
        return {"se": self.se, "ci": list(self.ci)}


class ByMethod:
    """A result holding ``intervals``, ``{method name: IntervalEstimate}`` in display order, as
    ``scipy.stats.bootstrap`` takes the method as a parameter rather than naming fields after it."""

    intervals: dict[str, IntervalEstimate]

    def interval(self, method: str) -> IntervalEstimate:
        """The interval of ``method`` (a key of :attr:`intervals`)."""
        try:
            return self.intervals[method]
        except KeyError:
            raise KeyError(
                f"no {method!r} interval in this {type(self).__name__}; it has {', '.join(self.intervals)}"
            ) from None


@dataclass(frozen=True)
class IntervalMethod:
    """What readers need to know of one interval method."""

    name: str  # its key: report.intervals[name], coverage[name], the JSON
    label: str  # what tables, figures and the HTML summary call it
    family: str  # one of FAMILIES
    kernel: Callable  # batch kernel -> (se or None, lower, upper)
    has_se: bool = False  # it has an SE of its own (the JSON's and the tables' "se"; simulate's se_mean)
    needs_replicate_se: bool = False  # bootstrap kernels only: it reads each replicate's SE
    json_field: tuple[str, str] | None = None  # (object, field) of its bounds in `ragunc interval --json`
    color: str = "grey"  # key of ragunc.present.style.PALETTE (colour-blind safe)
    # In the short list every view shows first (the naive interval, the recommended one, one bootstrap),
    # under this plain name; the others appear when the reader asks for all methods.
    plain: str | None = None

    @property
    def shown_first(self) -> bool:
        return self.plain is not None

    @property
    def resamples(self) -> bool:
        """Its kernel reads bootstrap replicates, of either bootstrap (else the linearization)."""
        return self.family in (CLUSTER_BOOTSTRAP, WILD_BOOTSTRAP)

    @property
    def json_path(self) -> tuple[str, str]:
        """``(object, field)``: where ``ragunc interval --json`` puts its bounds (and its "se" when it has one)."""
        return self.json_field or (self.name, "ci")


METHODS: tuple[IntervalMethod, ...] = (
    IntervalMethod(
        "naive",
        "Naive binomial (Wald)",
        NAIVE,
        linearization.naive_wald,
        has_se=True,
        color="vermillion",
        plain="Binomial: chunks as independent (naive)",
    ),
    IntervalMethod("wilson", "Naive binomial (Wilson)", NAIVE, linearization.naive_wilson, color="orange"),
    IntervalMethod(
        "cluster", "Cluster (linearization)", CLUSTER_ANALYTIC, linearization.cluster_normal, has_se=True, color="blue"
    ),
    IntervalMethod(
        "cluster_t",
        "Cluster (linearization, t)",
        CLUSTER_ANALYTIC,
        linearization.cluster_student_t,
        has_se=True,
        color="sky_blue",
    ),
    # Okabe-Ito yellow is unreadable on a light background: grey.
    IntervalMethod(
        "cluster_wilson",
        "Cluster (effective-n Wilson)",
        CLUSTER_ANALYTIC,
        linearization.cluster_effective_n_wilson,
        color="grey",
    ),
    # R survey's svyciprop(method = "beta" / "logit"), and the recommended interval (stats.recommend):
    # Paul Tol's colours beside Okabe-Ito's, the recommended one the darkest.
    IntervalMethod(
        "korn_graubard", "Korn–Graubard (R survey)", CLUSTER_ANALYTIC, linearization.korn_graubard, color="tol_teal"
    ),
    IntervalMethod("logit", "Logit (R survey)", CLUSTER_ANALYTIC, linearization.logit, color="tol_olive"),
    IntervalMethod(
        "korn_graubard_bm",
        "Korn–Graubard, Bell–McCaffrey df",
        CLUSTER_ANALYTIC,
        linearization.korn_graubard_bell_mccaffrey,
        color="tol_indigo",
        plain="Documents as clusters (recommended)",
    ),
    IntervalMethod(
        "jackknife",
        "Jackknife over documents (CV3, t)",
        CLUSTER_ANALYTIC,
        linearization.jackknife_t,
        has_se=True,
        color="tol_green",
    ),
    IntervalMethod(
        "bootstrap",
        "Cluster bootstrap (percentile)",
        CLUSTER_BOOTSTRAP,
        bootstrap.percentile,
        has_se=True,
        json_field=("bootstrap", "ci"),
        color="bluish_green",
        plain="Bootstrap over documents (percentile)",
    ),
    IntervalMethod(
        "bootstrap_bca",
        "Cluster bootstrap (BCa)",
        CLUSTER_BOOTSTRAP,
        bootstrap.bca,
        json_field=("bootstrap", "ci_bca"),
        color="reddish_purple",
    ),
    IntervalMethod(
        "bootstrap_t",
        "Cluster bootstrap (studentized)",
        CLUSTER_BOOTSTRAP,
        bootstrap.studentized,
        needs_replicate_se=True,
        json_field=("bootstrap", "ci_t"),
        color="wine",
    ),
    IntervalMethod(
        "bootstrap_t_logit",
        "Cluster bootstrap (studentized, logit)",
        CLUSTER_BOOTSTRAP,
        bootstrap.studentized_logit,
        needs_replicate_se=True,
        json_field=("bootstrap", "ci_t_logit"),
        color="tol_rose",
    ),
    IntervalMethod(
        "wild_restricted",
        "Wild cluster bootstrap (restricted, test inverted)",
        WILD_BOOTSTRAP,
        wild.wild_cluster_restricted,
        color="tol_purple",
    ),
    # What stats.recommend reports instead of korn_graubard_bm when a few documents carry the sample.
    IntervalMethod(
        "wild_span",
        "Korn–Graubard–BM and wild bootstrap, their span",
        WILD_BOOTSTRAP,
        wild.wild_span,
        color="tol_cyan",
    ),
)
METHOD_NAMES: tuple[str, ...] = tuple(m.name for m in METHODS)

# Readers go through these two functions rather than binding METHODS at import, so the
# registry is read in one place (and a test can extend it).


def interval_method(name: str) -> IntervalMethod:
    """The registered method called ``name``."""
    for method in METHODS:
        if method.name == name:
            return method
    raise ValueError(f"unknown interval method {name!r}; known: {', '.join(m.name for m in METHODS)}")


def interval_methods(names=None, *, resampling: bool = True, shown_first: bool = False) -> tuple[IntervalMethod, ...]:
    """The methods called ``names`` (default: all), in display order; ``resampling=False`` drops the bootstrap
    ones, ``shown_first=True`` keeps the short list (:attr:`IntervalMethod.shown_first`)."""
    wanted = {m.name for m in METHODS} if names is None else {interval_method(n).name for n in names}
    return tuple(
        m
        for m in METHODS
        if m.name in wanted and (resampling or not m.resamples) and (m.shown_first or not shown_first)
    )
