"""The bundled judged sample: what its metadata says, read back from the file."""

from __future__ import annotations

import json
from pathlib import Path

import pandas as pd
import pytest

from ragunc.data.results import load_results

ROOT = Path(__file__).resolve().parents[2]


def test_the_judged_sample_is_a_population_with_a_lenient_judge():
    meta = json.loads((ROOT / "sample_data" / "stdlib_judged_meta.json").read_text())
    frame = pd.read_csv(ROOT / "sample_data" / meta["file"])
    source = pd.read_csv(ROOT / "sample_data" / meta["source"])
    assert (frame["y"] == source["y"]).all() and (frame["y_judge"] == source["doc_hit1"]).all()
    assert (frame["y_judge"] >= frame["y"]).all()  # lenient: never misses a hit
    population = load_results(ROOT / "sample_data" / meta["file"]).judged_sample()
    assert population.fully_audited and population.binary
    assert (population.n_docs, population.n_rows) == (meta["n_docs"], meta["n_rows"])
    micro = meta["population"]["micro"]
    assert micro["gold"] == pytest.approx(frame["y"].mean()) and micro["judge"] == pytest.approx(
        frame["y_judge"].mean()
    )
    by_doc = frame.groupby("doc_id")[["y", "y_judge"]].mean()
    assert meta["population"]["macro"]["bias"] == pytest.approx((by_doc["y_judge"] - by_doc["y"]).mean())
