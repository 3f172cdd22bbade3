"""AppTest of the Uncertainty explorer with judged labels: the three estimates, the audit simulated, its coverage."""

from __future__ import annotations

import json

import numpy as np
import pytest

from ragunc.data.results import load_results, results_from_frame
from ragunc.stats.judged.coverage import judged_coverage, simulated_audit
from ragunc.stats.judged.report import judged_report
from ragunc.stats.linearization import estimate
from ragunc.stats.synthetic import synthesize_judged
from dashboard import sources

FAST = {"reps": "200", "boot": "200", "k": "30", "seed": "3"}


def _chart(at, title: str) -> dict:
    return next(json.loads(c.proto.spec) for c in at.get("plotly_chart") if title in c.proto.spec)


def test_the_judged_sample_shows_three_estimates_and_their_coverage(open_app, tile):
    at = open_app(source="judged", **FAST)
    assert not at.exception and not at.error, [e.value for e in at.error]
    population = load_results(sources.SAMPLE_DIR / sources.JUDGED_SAMPLE).judged_sample()
    expected = judged_report(simulated_audit(population, k=30, audit="rows", audit_share=0.2, rng=3))
    spec = _chart(at, "Three estimates of the gold")
    for trace, name in zip(spec["data"], ("judge_only", "gold_only", "prediction_powered")):
        assert trace["x"][0] == pytest.approx(100 * expected[name].estimate)
    assert spec["layout"]["shapes"][0]["x0"] == pytest.approx(100 * estimate(population.gold_sample()))
    assert tile(at, "λ") == f"{expected.lam:.2f}"
    assert tile(at, "Audited rows") == f"{expected.audit.n_audited:,}"
    coverage = judged_coverage(population, k=30, reps=200, audit="rows", audit_share=0.2, rng=3)
    bars = _chart(at, "Coverage of the gold mean")["data"][0]
    assert bars["x"] == pytest.approx(
        [100 * coverage.coverage[n] for n in ("judge_only", "gold_only", "prediction_powered")]
    )
    # A document audit of 40% of the K documents, from the URL-bound controls.
    at.radio(key="audit").set_value("documents").run()
    at.slider(key="audit_pct").set_value(40).run()
    assert not at.exception and not at.error
    docs = judged_report(simulated_audit(population, k=30, audit="documents", audit_share=0.4, rng=3))
    assert tile(at, "Audited documents") == f"{docs.audit.n_audited_docs:,}" == "12"


def test_judged_labels_with_a_partial_audit_are_the_sample_itself(open_app, upload):
    frame = synthesize_judged(n_docs=60, mean_chunks=6, rng=4)
    audited = np.random.default_rng(4).random(len(frame)) < 0.3
    frame = frame.assign(y=np.where(audited, frame["y"].astype(str), ""))
    at = upload(open_app(source="upload", **FAST), frame)
    assert not at.exception and not at.error, [e.value for e in at.error]
    expected = judged_report(results_from_frame(frame).judged_sample())
    spec = _chart(at, "Three estimates of the gold")
    assert spec["data"][2]["x"][0] == pytest.approx(100 * expected["prediction_powered"].estimate)
    assert any("needs gold labels on every row" in i.value for i in at.info)


def test_a_row_audit_of_scores_is_an_error_in_place(open_app, upload):
    frame = synthesize_judged(n_docs=60, mean_chunks=6, rng=5)
    frame = frame.assign(y_judge=(frame["y_judge"] * 0.5 + 0.25))  # scores, gold on every row
    at = upload(open_app(source="upload", **FAST), frame)
    assert not at.exception
    assert any("0/1 gold and judge" in e.value for e in at.error)
    at.radio(key="audit").set_value("documents").run()  # the controls stay, and whole documents work
    assert not at.exception and not at.error
