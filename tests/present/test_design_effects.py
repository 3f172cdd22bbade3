"""The one disclosure that reconciles a data set's design effects: its numbers are the statistics' own."""

from __future__ import annotations

import math

import numpy as np

from ragunc.present import numbers
from ragunc.present.design_effects import LABEL, design_effect_line, why_these_differ
from ragunc.stats.coverage import coverage_experiment
from ragunc.stats.design import design
from ragunc.stats.diagnostics import diagnostics
from ragunc.stats.intervals import interval_report
from ragunc.stats.sample import ClusterStats, draw_sample


def population(d: int = 300, seed: int = 3) -> ClusterStats:
    rng = np.random.default_rng(seed)
    n = rng.integers(2, 60, d)
    hits = rng.binomial(n, rng.beta(0.6, 2.4, d)).astype(float)
    return ClusterStats(np.arange(d).astype(str), hits, n, hits)


def test_each_line_carries_its_own_design_effect_computed_by_hand():
    pop = population()
    diag = diagnostics(pop)
    values = design(pop, 20, rng=0)
    m, rho = pop.n.mean(), diag.icc
    cv = pop.n.std() / m
    lines = why_these_differ(values, diag)
    assert lines[0].startswith(f"**{numbers.deff(values.deff)}: the design**")
    # 1 + (m - 1) rho and Kish's 1 + ((1 + CV^2) m - 1) rho, from the sizes and the ICC directly
    assert lines[1].startswith(f"**{numbers.deff(1 + (m - 1) * rho)}: if every document had the same size")
    assert min(abs(diag.cv_size - cv), abs(diag.cv_size - pop.n.std(ddof=1) / m)) < 1e-9
    kish = 1 + ((1 + diag.cv_size**2) * m - 1) * rho
    assert lines[2].startswith(f"**{numbers.deff(kish)}: Kish's correction")
    assert len(lines) == 3  # no coverage run, no sample: nothing else to reconcile


def test_a_coverage_run_and_a_sample_add_their_own_lines_with_the_run_noise():
    pop = population()
    values = design(pop, 20, rng=0)
    run = coverage_experiment(pop, k=20, reps=400, boot=0, rng=1)
    report = interval_report(draw_sample(pop, 20, rng=2), boot=200, rng=0)
    lines = why_these_differ(values, diagnostics(pop), report=report, coverage=run)
    assert lines[3].startswith(f"**{numbers.deff(run.variance_ratio)}: measured on these R = 400 repetitions")
    assert f"±{100 * math.sqrt(2 / 399):.0f}%" in lines[3]
    assert lines[4].startswith(f"**{numbers.deff(report.diagnostics.deff)}: this sample's own estimate")


def test_the_one_design_effect_is_said_in_plain_words():
    values = design(population(), 20, rng=0)
    line = design_effect_line(values)
    assert LABEL in line and numbers.deff(values.deff) in line and "20 documents" in line
