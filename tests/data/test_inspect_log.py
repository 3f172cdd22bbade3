"""Inspect AI logs written by a real ``inspect eval`` run (fixtures/inspect/make_logs.py), read without inspect_ai.

The parity checks compare ragunc's linearization SE with the clustered stderr Inspect itself
computed and wrote in the same log.
"""

from __future__ import annotations

import io
import json
import pathlib
import zipfile

import pytest

from ragunc.cli import main
from ragunc.data import DataError
from ragunc.data.inspect_log import value_to_float
from ragunc.data.results import load_results
from ragunc.stats.intervals import interval_report

LOGS = pathlib.Path(__file__).resolve().parent / "fixtures" / "inspect"


@pytest.mark.parametrize("name, rows", [("clustered.eval", 30), ("clustered.json", 15)])
@pytest.mark.parametrize("columns", [None, {"doc_id": "metadata.doc_id"}])
def test_cluster_se_is_inspects_recorded_clustered_stderr(name, rows, columns):
    results = load_results(LOGS / name, columns=columns)
    assert results.n_rows == rows  # one row per sample and epoch
    (config,) = results.configs
    assert config == "clustered (mockllm/model)"
    recorded = results.recorded[config]
    assert recorded.cluster == "doc_id" and recorded.epochs == rows // 15
    report = interval_report(results.population(), boot=50, rng=0)
    assert report.interval("cluster").se == pytest.approx(recorded.value, rel=1e-12)


def test_clustering_by_another_field_differs_and_says_why(capsys):
    argv = ["interval", str(LOGS / "clustered.eval"), "--boot", "50", "--json"]
    assert main([*argv, "--column", "doc_id=metadata.topic"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["cluster"]["se"] != pytest.approx(d["recorded"]["stderr"])
    assert "ragunc clusters by metadata.topic, Inspect by metadata.doc_id" in d["recorded"]["reading"]
    assert main([*argv, "--column", "doc_id=metadata.doc_id"]) == 0
    assert "the same formula, the same value" in json.loads(capsys.readouterr().out)["recorded"]["reading"]


def test_scorer_is_chosen_by_name_and_an_unknown_one_is_listed():
    first = load_results(LOGS / "clustered.json")
    chosen = load_results(LOGS / "clustered.json", scorer="match")
    assert first.recorded[first.configs[0]].scorer == "includes"
    assert chosen.recorded[chosen.configs[0]].scorer == "match"
    with pytest.raises(DataError, match=r"clustered.json: no scorer 'f1'.*'includes', 'match'"):
        load_results(LOGS / "clustered.json", scorer="f1")


def test_a_deflate_archive_reads_as_the_zstandard_one():
    source = zipfile.ZipFile(LOGS / "clustered.eval")
    out = io.BytesIO()
    import zstandard

    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            start = info.header_offset
            raw = (LOGS / "clustered.eval").read_bytes()
            skip = int.from_bytes(raw[start + 26 : start + 28], "little") + int.from_bytes(
                raw[start + 28 : start + 30], "little"
            )
            body = raw[start + 30 + skip : start + 30 + skip + info.compress_size]
            target.writestr(
                info.filename, zstandard.ZstdDecompressor().decompress(body, max_output_size=info.file_size)
            )
    out.name = "deflate.eval"
    a, b = load_results(out), load_results(LOGS / "clustered.eval")
    assert a.population().n_docs == b.population().n_docs
    assert (a.population().sum_y == b.population().sum_y).all()


def test_inspects_value_to_float_rule():
    values = ["C", "P", "I", "N", "yes", "False", "0.25", 3, True, 0.5]
    assert [value_to_float(v) for v in values] == [1.0, 0.5, 0.0, 0.0, 1.0, 0.0, 0.25, 3.0, 1.0, 0.5]


def test_a_cut_archive_names_the_file_and_nothing_else(tmp_path):
    cut = tmp_path / "cut.eval"
    cut.write_bytes((LOGS / "clustered.eval").read_bytes()[:5000])
    with pytest.raises(DataError) as err:
        load_results(cut)
    assert str(err.value).startswith(f"{cut}: not a readable .eval archive")


def test_two_models_compare_with_a_p_value(capsys):
    argv = ["compare", str(LOGS / "clustered.json"), str(LOGS / "other_model.eval"), "--boot", "50", "--json"]
    assert main([*argv, "--a", "clustered (mockllm/model)", "--b", "clustered (mockllm/other)"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["n_docs"] == 5 and d["df"] == 4 and 0 < d["p_value"] < 1
