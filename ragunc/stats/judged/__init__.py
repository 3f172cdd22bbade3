"""Labels from a judge, audited by a person: judge-only, gold-only and prediction-powered estimates.

Every row (chunk or question) of the K sampled documents carries the judge's label or
score ``f`` in [0, 1]; a person's gold label ``y`` is known on the audited rows only.
Three estimates of the gold mean, each with documents as clusters, micro and macro:

* **judge-only**: the judge's labels taken as gold (what is reported without an audit);
* **gold-only**: the audited rows alone (prediction-powered at lambda = 0);
* **prediction-powered** (PPI++: Angelopoulos et al. 2023; Angelopoulos, Duchi and Zrnic
  2023): ``R_G + lambda (R_F - R_H)``, the gold mean of the audited rows corrected by how
  far the judge's mean over every row lies from its mean over the audited ones, with
  ``lambda`` in [0, 1] chosen from the data (reported): the least audit variance.

Sums per document (:class:`~.sample.JudgedSums`, the per-document file's names; documents on the
last axis, repetitions on leading axes): ``n`` m (rows) and ``sum_judge`` F (every row); ``audited``
A (rows a person labelled), ``sum_gold`` G, ``sum_gold2``, ``sum_judge_audited`` H,
``sum_judge2_audited`` and ``sum_gold_judge`` (sum of y f) over the audited rows.  Rows weigh
``w = 1`` (micro) or ``1/m`` (macro: every document counts once), and
``R_F = sum(w F) / sum(w m)``, ``R_G = sum(w G) / sum(w A)``, ``R_H = sum(w H) / sum(w A)``.
For 1-row documents and an audit drawn at random the estimate is ppi-python's
``ppi_mean_pointestimate`` and the standard error its ``ppi_mean_ci``'s (a fixture).

The design the variance assumes is two-phase (Cochran 1977, ch. 12; Särndal, Swensson and
Wretman 1992, ch. 9).  Phase 1 draws K documents from D (with the finite-population
correction ``1 - K/D`` when D is known; D unknown is the with-replacement approximation).
Phase 2 is the audit, drawn inside the K documents, either

* ``"rows"``: rows audited independently with one probability inside every sampled document
  (a random subset of rows; the share is estimated by ``sum A / sum m``), or
* ``"documents"``: a simple random sample of ``k_a`` of the K documents, audited whole.

Its variance is ``V = (1 - K/D) V1 + V2``: V1 the between-document variance the judged
documents themselves carry, V2 the audit's given those documents.  Both are quadratic in
lambda.  V1 does not depend on lambda, so the tuned lambda is the vertex of V2's parabola,
clipped to [0, 1]: the slope of the gold labels on the judge's over the audited rows (weighted
least squares, weights w^2) or over the audited documents' residuals; learnt on every audited
row, it is steadier than the vertex of the whole estimated variance.

* rows: the ultimate-cluster variance ``V_UC = sum (g + lambda h)^2 / (K (K - 1))`` of
  the linearized residuals ``g = K w (G - R_G A) / sum(w A)`` and ``h = K (w (F - R_F m) /
  sum(w m) - w (H - R_H A) / sum(w A))`` estimates V1 + V2 when documents are drawn with
  replacement and the audit is independent between documents; with a known D the estimate
  is ``(1 - K/D) V_UC + (K/D) V2``, V2 the row-level Hájek variance
  ``(1 - pi) sum_audited w^2 (r - c)^2 / sum(w A)^2`` of ``r = y - lambda f`` about its mean c.
* documents: V1 is ``S^2 / K`` with ``S^2`` the between-document variance of the gold
  residuals ``w (G - R_G A) / mean(w m)`` over the audited documents (whose gold is
  complete), V2 ``(1 - k_a/K) S_r^2 / k_a`` of the residuals of ``G - lambda H`` about
  ``c A`` (a simple random sample of k_a of the K documents); for 1-row documents this is
  the two-phase regression estimator's variance, and ppi-python's.

The three estimates of the gold mean take their interval from the registry
(:mod:`ragunc.stats.methods`; default ragunc's recommended one, Korn–Graubard with
Bell–McCaffrey degrees of freedom), on the K documents for the judge-only estimate and on
the audited rows and their ``k_a`` documents for the others, the audited documents being
where the correction's variance is learnt; the judge's bias, a difference, takes the
linearization t interval.  An audit of fewer than two documents leaves the correction's
variance unknown: NaN variances and bounds, and lambda = 1 (plain PPI: nothing to tune on).

The modules, one concern each: :mod:`.sample` (the judged sample, its sums, the names of the
estimates), :mod:`.kernel` (the batch kernel), :mod:`.report` (one sample's report), :mod:`.coverage`
(the coverage experiment and one simulated audit), :mod:`.plan` (how much to audit).
"""
