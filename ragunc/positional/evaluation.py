"""Position-binned retrieval metrics and their cluster-bootstrap intervals over passages.

Every query has one relevant passage, so nDCG@10 is ``1 / log2(1 + rank)`` for a rank up to
10 and 0 beyond.  Per position group (begin, middle, end): the mean nDCG@10 over passages; the
begin-minus-end gap; their harmonic mean ``HM = 3 / sum(1 / g)``; the Positional Sensitivity Index
``PSI = 1 - min(g) / max(g)``; and PosIR's curve, nDCG@10 over 20 bins of the answer's relative
position.  Queries made from one passage are not independent, so intervals resample passages
(clusters) with :func:`ragunc.stats.bootstrap_kernels.resampled_sums`, one draw shared by every setting:
the differences against the reference setting are paired.
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ..data.serialize import json_text
from ..stats.bootstrap import sorted_quantile
from ..stats.bootstrap_kernels import resampled_sums
from .passages import POSITION_GROUPS, PositionalQueries
from .settings import Calibration

CURVE_BINS = 20
METRICS = (*POSITION_GROUPS, "all", "gap", "hm", "psi")


def relevant_ranks(query_embeddings: np.ndarray, passage_embeddings: np.ndarray, relevant: np.ndarray) -> np.ndarray:
    """Rank (1 = top) of each query's relevant passage by cosine similarity; ties rank it last."""
    scores = query_embeddings @ passage_embeddings.T
    own = scores[np.arange(len(relevant)), relevant]
    return (scores >= own[:, None]).sum(1)


def ndcg_at_10(ranks: np.ndarray) -> np.ndarray:
    """nDCG@10 with one relevant item: ``1 / log2(1 + rank)`` if ``rank <= 10``, else 0."""
    ranks = np.asarray(ranks, dtype=float)
    return np.where(ranks <= 10, 1.0 / np.log2(1.0 + ranks), 0.0)


def harmonic_mean(groups: np.ndarray) -> np.ndarray:
    """``len / sum(1 / g)`` over the last axis; 0 when any group is 0."""
    groups = np.asarray(groups, dtype=float)
    with np.errstate(divide="ignore"):
        inverse = np.where(groups > 0, 1.0 / np.where(groups > 0, groups, 1.0), np.inf)
    return np.where(np.isfinite(inverse).all(-1), groups.shape[-1] / inverse.sum(-1), 0.0)


def positional_sensitivity(groups: np.ndarray) -> np.ndarray:
    """PSI ``= 1 - min / max`` over the last axis (NaN when every group is 0)."""
    groups = np.asarray(groups, dtype=float)
    top = groups.max(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(top > 0, 1.0 - groups.min(-1) / top, np.nan)


def _summaries(group_means: np.ndarray) -> dict[str, np.ndarray]:
    """Every metric from the per-group means (..., 3)."""
    out = {name: group_means[..., g] for g, name in enumerate(POSITION_GROUPS)}
    out["all"] = group_means.mean(-1)
    out["gap"] = group_means[..., 0] - group_means[..., -1]  # begin minus end
    out["hm"] = harmonic_mean(group_means)
    out["psi"] = positional_sensitivity(group_means)
    return out


@dataclass(frozen=True)
class SettingResult:
    """One setting's metrics, their intervals, and their differences from the reference setting."""

    calibration: Calibration
    metrics: dict[str, float]  # begin, middle, end, all, gap (begin - end), hm, psi
    ci: dict[str, tuple[float, float]]
    diff: dict[str, float]  # this setting minus the reference
    diff_ci: dict[str, tuple[float, float]]
    curve: tuple[float, ...]  # nDCG@10 per bin of relative position (NaN: no query there)
    curve_ci: tuple[tuple[float, float], ...]
    per_passage: np.ndarray  # (passages, 3) nDCG@10, for re-analysis

    def to_dict(self) -> dict:
        """The CLI's entry (without the keys shared by every setting)."""
        cal = self.calibration
        return {
            "lambda": cal.lam,
            "basket": cal.basket,
            "layers": cal.layers,
            "rows": cal.rows,
            "share": cal.share,
            "label": cal.label(),
            "ndcg10": {name: self.metrics[name] for name in (*POSITION_GROUPS, "all")},
            "gap": self.metrics["gap"],
            "hm": self.metrics["hm"],
            "psi": self.metrics["psi"],
            "ci": {
                **{name: list(self.ci[name]) for name in METRICS},
                "diff": {name: list(self.diff_ci[name]) for name in METRICS},
            },
            "diff": dict(self.diff),
            "curve": list(self.curve),
            "curve_ci": [list(c) for c in self.curve_ci],
        }

    @classmethod
    def from_dict(cls, entry: dict, per_passage: np.ndarray) -> "SettingResult":
        def none_nan(v):
            return float("nan") if v is None else float(v)

        metrics = {
            **{k: none_nan(v) for k, v in entry["ndcg10"].items()},
            **{k: none_nan(entry[k]) for k in ("gap", "hm", "psi")},
        }
        ci = entry["ci"]
        return cls(
            calibration=Calibration(
                lam=entry["lambda"],
                basket=entry["basket"],
                layers=entry["layers"],
                rows=entry["rows"],
                share=entry["share"],
            ),
            metrics=metrics,
            ci={k: tuple(none_nan(x) for x in ci[k]) for k in METRICS},
            diff={k: none_nan(v) for k, v in entry["diff"].items()},
            diff_ci={k: tuple(none_nan(x) for x in ci["diff"][k]) for k in METRICS},
            curve=tuple(none_nan(v) for v in entry["curve"]),
            curve_ci=tuple(tuple(none_nan(x) for x in c) for c in entry["curve_ci"]),
            per_passage=per_passage,
        )


def _interval(sorted_reps: np.ndarray, level: float) -> np.ndarray:
    """Percentile bounds (..., 2) of replicates sorted on the last axis, NaNs sorted last and left out."""
    alpha = (1 - level) / 2
    count = np.isfinite(sorted_reps).sum(-1)
    lead = sorted_reps.shape[:-1]
    return np.stack(
        [
            sorted_quantile(sorted_reps, np.full(lead, alpha), count),
            sorted_quantile(sorted_reps, np.full(lead, 1 - alpha), count),
        ],
        -1,
    )


def evaluate_settings(
    queries: PositionalQueries,
    query_embeddings: Sequence[np.ndarray],
    passage_embeddings: Sequence[np.ndarray],
    calibrations: Sequence[Calibration],
    *,
    reference: int = 0,
    level: float = 0.95,
    reps: int = 1000,
    rng: np.random.Generator | int | None = 0,
) -> tuple[SettingResult, ...]:
    """Metrics of every setting (its query and passage embeddings) with paired cluster-bootstrap
    percentile intervals over passages; differences are against setting ``reference``."""
    if not len(query_embeddings) == len(passage_embeddings) == len(calibrations) or not 0 <= reference < len(
        calibrations
    ):
        raise ValueError("need query and passage embeddings for every calibration, and a reference among them")
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level!r}")
    if int(reps) != reps or reps < 2:
        raise ValueError(f"reps must be an integer >= 2, got {reps!r}")
    n_settings, n_passages = len(calibrations), queries.n_passages
    # (settings, passages, 3): queries are passage-major, one per group.
    ndcg = np.stack(
        [ndcg_at_10(relevant_ranks(q, p, queries.passage)) for q, p in zip(query_embeddings, passage_embeddings)]
    ).reshape(n_settings, n_passages, 3)
    bins = np.minimum((queries.position * CURVE_BINS).astype(np.int64), CURVE_BINS - 1)
    in_bin = np.eye(CURVE_BINS)[bins].reshape(n_passages, 3, CURVE_BINS)
    bin_sums = np.einsum("spg,pgb->spb", ndcg, in_bin)
    in_bin = in_bin.sum(1)

    # One resampling of passages for every column: settings, groups and bins stay paired.
    columns = [
        *ndcg.transpose(0, 2, 1).reshape(-1, n_passages),
        *bin_sums.transpose(0, 2, 1).reshape(-1, n_passages),
        *in_bin.T,
    ]
    sums = resampled_sums(columns, reps, rng)
    n_groups = n_settings * 3
    group_reps = np.stack(sums[:n_groups]).reshape(n_settings, 3, reps).transpose(0, 2, 1) / n_passages
    bin_reps = np.stack(sums[n_groups : n_groups + n_settings * CURVE_BINS]).reshape(n_settings, CURVE_BINS, reps)
    count_reps = np.stack(sums[n_groups + n_settings * CURVE_BINS :])
    with np.errstate(divide="ignore", invalid="ignore"):
        curve_reps = np.where(count_reps > 0, bin_reps / count_reps, np.nan)
        curve = np.where(in_bin.sum(0) > 0, bin_sums.sum(1) / in_bin.sum(0), np.nan)

    estimates = _summaries(ndcg.mean(1))  # name -> (settings,)
    replicates = _summaries(group_reps)  # name -> (settings, reps)
    results = []
    for s, calibration in enumerate(calibrations):
        ci, diff, diff_ci = {}, {}, {}
        for name in METRICS:
            ci[name] = tuple(_interval(np.sort(replicates[name][s]), level))
            diff[name] = float(estimates[name][s] - estimates[name][reference])
            diff_ci[name] = tuple(_interval(np.sort(replicates[name][s] - replicates[name][reference]), level))
        results.append(
            SettingResult(
                calibration=calibration,
                metrics={name: float(estimates[name][s]) for name in METRICS},
                ci={k: (float(a), float(b)) for k, (a, b) in ci.items()},
                diff=diff,
                diff_ci={k: (float(a), float(b)) for k, (a, b) in diff_ci.items()},
                curve=tuple(float(v) for v in curve[s]),
                curve_ci=tuple((float(a), float(b)) for a, b in _interval(np.sort(curve_reps[s], -1), level)),
                per_passage=ndcg[s],
            )
        )
    return tuple(results)


@dataclass(frozen=True)
class PositionalSweep:
    """Every setting of a sweep on one encoder, corpus and query set; settings[0] is the reference."""

    encoder: dict  # model, path, pooling, max_seq_length, n_layers, device, fingerprint
    passages: dict  # PositionalQueries.describe(): corpus, counts, lengths, bucket, truncation
    query_model: dict
    settings: tuple[SettingResult, ...]
    level: float
    reps: int
    seed: int
    seconds: float

    @property
    def reference(self) -> SettingResult:
        return self.settings[0]

    def series(self) -> list[tuple[int, str, str, str]]:
        """``(basket, layers, rows, share)`` of the calibrated settings, in sweep order, each once."""
        keys = [
            (s.calibration.basket, s.calibration.layers, s.calibration.rows, s.calibration.share)
            for s in self.settings[1:]
        ]
        return list(dict.fromkeys(keys))

    def along_lambda(
        self, basket: int, layers: str, rows: str = "pooling", share: str = "original"
    ) -> list[SettingResult]:
        """The reference (lambda = 0) and every setting with these fields, by increasing lambda."""
        chosen = [
            s
            for s in self.settings[1:]
            if (s.calibration.basket, s.calibration.layers, s.calibration.rows, s.calibration.share)
            == (basket, layers, rows, share)
        ]
        return [self.reference, *sorted(chosen, key=lambda s: s.calibration.lam)]

    def entries(self) -> list[dict]:
        """The CLI's JSON list: one entry per setting, with the keys every setting shares."""
        shared = {
            "model": self.encoder["model"],
            "pooling": self.encoder["pooling"],
            "max_seq_length": self.encoder["max_seq_length"],
            "corpus": self.passages["corpus"],
            "n_passages": self.passages["n_passages"],
            "n_queries": self.passages["n_queries"],
            "length_bucket": self.passages["length_bucket"],
            "truncated_share": self.passages["truncated_share"],
            "truncated_by_group": self.passages["truncated_by_group"],
            "level": self.level,
            "reps": self.reps,
            "seed": self.seed,
        }
        if "language" in self.passages:  # a sweep saved before languages had analysers has none
            shared["language"] = self.passages["language"]
        return [{**s.to_dict(), **shared} for s in self.settings]

    def to_dict(self) -> dict:
        """Everything, per-passage nDCG@10 included (the bundled results' file format)."""
        return {
            "encoder": self.encoder,
            "passages": self.passages,
            "query_model": self.query_model,
            "level": self.level,
            "reps": self.reps,
            "seed": self.seed,
            "seconds": self.seconds,
            "settings": [{**s.to_dict(), "per_passage": s.per_passage.tolist()} for s in self.settings],
        }

    @classmethod
    def from_dict(cls, payload: dict) -> "PositionalSweep":
        return cls(
            encoder=payload["encoder"],
            passages=payload["passages"],
            query_model=payload["query_model"],
            settings=tuple(
                SettingResult.from_dict(e, np.asarray(e["per_passage"], dtype=float)) for e in payload["settings"]
            ),
            level=float(payload["level"]),
            reps=int(payload["reps"]),
            seed=int(payload["seed"]),
            seconds=float(payload["seconds"]),
        )


def save_sweep(sweep: PositionalSweep, path: str | os.PathLike) -> Path:
    """Write the sweep as JSON (NaN as null)."""
    file = Path(path)
    file.write_text(json_text(sweep.to_dict()) + "\n", encoding="utf-8")
    return file


def load_sweep(path: str | os.PathLike) -> PositionalSweep:
    """A sweep written by :func:`save_sweep`."""
    return PositionalSweep.from_dict(json.loads(Path(path).read_text(encoding="utf-8")))
