"""The bundled Debian-copyright sample: documents that are alike, so the binomial interval undercovers."""

from __future__ import annotations

import json
import pathlib

import pytest

from ragunc.data.results import load_results
from ragunc.stats.coverage import coverage_experiment

DATA = pathlib.Path(__file__).resolve().parents[2] / "sample_data"
META = json.loads((DATA / "debian_copyright_meta.json").read_text())


@pytest.mark.parametrize("config", ["50w", "100w", "200w"])
def test_files_match_their_metadata(config):
    sample = load_results(DATA / META["configs"][config]["file"]).population(config)
    assert sample.n_docs == META["corpus"]["n_docs"]
    assert sample.n_chunks == META["configs"][config]["n_chunks"]
    assert META["configs"][config]["coverage_k20"]["naive"] < 0.7


def test_naive_coverage_at_k20_is_well_below_nominal():
    population = load_results(DATA / "debian_copyright_100w.csv.gz").population("100w")
    result = coverage_experiment(population, k=20, reps=400, boot=0, rng=1)
    assert result.methods["naive"].coverage < 0.65
    assert result.methods["cluster"].coverage > result.methods["naive"].coverage + 0.2
