"""Run and qrels loading: formats, chunk maps, ordering and the error messages at the boundary."""

from __future__ import annotations

import gzip
import io
import json

import numpy as np
import pandas as pd
import pytest

from ragunc.data import DataError
from ragunc.data.runs import (
    load_chunk_map,
    load_qrels,
    load_run,
    load_runs,
    qrels_from_frame,
    query_groups,
    run_from_frame,
    run_name,
    runs_from_frame,
)


def frame(rows, columns=("query_id", "rank", "chunk_id", "doc_id")):
    return pd.DataFrame(rows, columns=list(columns))


def test_csv_run_is_ordered_by_rank_within_query(tmp_path):
    path = tmp_path / "run.csv"
    path.write_text("query_id,rank,chunk_id,doc_id\nq2,1,z,Z\nq1,2,b,B\nq1,1,a,A\nq2,10,y,Y\n")
    run = load_run(path)
    assert list(run.query_id) == ["q2", "q1"]
    out = run.to_frame()
    assert out.values.tolist() == [["q2", 1, "z", "Z"], ["q2", 2, "y", "Y"], ["q1", 1, "a", "A"], ["q1", 2, "b", "B"]]


def test_ids_stay_strings(tmp_path):
    path = tmp_path / "run.csv"
    path.write_text("query_id,rank,chunk_id,doc_id\n007,1,01,1.0\n")
    run = load_run(path)
    assert run.query_id[0] == "007" and run.chunk_id[0] == "01" and run.doc_id[0] == "1.0"


def test_score_orders_descending_without_rank():
    run = run_from_frame(
        frame([("q", 0.2, "low", "L"), ("q", 0.9, "high", "H")], ("query_id", "score", "chunk_id", "doc_id"))
    )
    assert list(run.chunk_id) == ["high", "low"]
    assert list(run.position) == [0, 1]


def test_equal_scores_go_by_descending_chunk_id():
    rows = [("q", 0.5, "a", "A"), ("q", 0.7, "b", "B"), ("q", 0.5, "c", "C"), ("q", 0.5, "a2", "A")]
    run = run_from_frame(frame(rows, ("query_id", "score", "chunk_id", "doc_id")))
    assert list(run.chunk_id) == ["b", "c", "a2", "a"]


def test_equal_ranks_without_scores_raise_and_scores_break_them():
    rows = [("q", 1, "a", "A"), ("q", 1, "b", "B")]
    with pytest.raises(ValueError, match=r"ties without scores.*rows 1, 2"):
        run_from_frame(frame(rows))
    run = run_from_frame(
        frame([("q", 1, "a", "A", 0.1), ("q", 1, "b", "B", 0.3)], ("query_id", "rank", "chunk_id", "doc_id", "score"))
    )
    assert list(run.chunk_id) == ["b", "a"]


@pytest.mark.parametrize("bad", ["1.5", "x", "0", "-2"])
def test_non_integer_rank_names_the_row(bad):
    rows = [("q", "1", "a", "A"), ("q", bad, "b", "B")]
    with pytest.raises(ValueError, match=r"column rank .*row 2\b"):
        run_from_frame(frame(rows))


def test_missing_columns_are_named():
    with pytest.raises(ValueError, match="missing column chunk_id"):
        run_from_frame(pd.DataFrame({"query_id": ["q"], "rank": [1]}))
    documents = run_from_frame(pd.DataFrame({"query_id": ["q"], "rank": [1], "doc_id": ["A"]}))
    assert list(documents.chunk_id) == list(documents.doc_id) == ["A"]  # a document-level run
    with pytest.raises(ValueError, match="rank or score"):
        run_from_frame(pd.DataFrame({"query_id": ["q"], "chunk_id": ["a"], "doc_id": ["A"]}))
    with pytest.raises(ValueError, match="missing column doc_id.*chunk map"):
        run_from_frame(pd.DataFrame({"query_id": ["q"], "rank": [1], "chunk_id": ["a"]}))
    with pytest.raises(ValueError, match="missing column relevance"):
        qrels_from_frame(pd.DataFrame({"query_id": ["q"], "doc_id": ["A"]}))


def test_blank_ids_and_duplicate_chunks_name_rows():
    with pytest.raises(ValueError, match=r"column doc_id is empty in row 2"):
        run_from_frame(frame([("q", 1, "a", "A"), ("q", 2, "b", None)]))
    with pytest.raises(ValueError, match=r"same chunk_id appears twice.*rows 1, 3"):
        run_from_frame(frame([("q", 1, "a", "A"), ("q", 2, "b", "B"), ("q", 3, "a", "A")]))


def test_trec_run_with_chunk_map(tmp_path):
    (tmp_path / "map.csv").write_text("chunk_id,doc_id\nc1,manual\nc2,manual\nc3,faq\n")
    (tmp_path / "run.trec").write_text("q Q0 c3 2 1.5 bm25\nq Q0 c1 1 2.0 bm25\nq Q0 c2 3 1.0 bm25\n")
    run = load_run(tmp_path / "run.trec", chunk_map=tmp_path / "map.csv")
    assert list(run.chunk_id) == ["c1", "c3", "c2"]
    assert list(run.doc_id) == ["manual", "faq", "manual"]


def test_trec_ids_that_look_like_missing_values_stay_ids(tmp_path):
    (tmp_path / "run.trec").write_text("q Q0 NA 1 2.0 t\nq Q0 null 2 1.0 t\n")
    (tmp_path / "qrels.trec").write_text("q 0 None 1\n")
    run = load_run(tmp_path / "run.trec", chunk_map={"NA": "None", "null": "nan"})
    assert list(run.chunk_id) == ["NA", "null"] and list(run.doc_id) == ["None", "nan"]
    assert list(load_qrels(tmp_path / "qrels.trec").doc_id) == ["None"]


def test_unknown_chunks_are_named(tmp_path):
    (tmp_path / "run.trec").write_text("q Q0 c1 1 2.0 t\nq Q0 c9 2 1.0 t\n")
    with pytest.raises(ValueError, match=r"not in the chunk map \(c9\).*row 2"):
        load_run(tmp_path / "run.trec", chunk_map={"c1": "A"})


def test_chunk_map_rejects_a_chunk_in_two_documents(tmp_path):
    (tmp_path / "map.csv").write_text("chunk_id,doc_id\nc1,A\nc1,B\n")
    with pytest.raises(ValueError, match="two different doc_id.*row 2"):
        load_chunk_map(tmp_path / "map.csv")


def test_doc_id_disagreeing_with_the_chunk_map():
    with pytest.raises(ValueError, match="disagrees with the chunk map in row 1"):
        run_from_frame(frame([("q", 1, "c1", "B")]), chunk_map={"c1": "A"})


def test_trec_file_with_wrong_column_count(tmp_path):
    (tmp_path / "run.txt").write_text("q c1 1 2.0\n")
    with pytest.raises(ValueError, match="6 whitespace-separated columns"):
        load_run(tmp_path / "run.txt", chunk_map={"c1": "A"})


def test_jsonl_gzip_run_and_upload_buffers(tmp_path):
    records = [
        {"query_id": "q", "rank": 2, "chunk_id": "b", "doc_id": "B"},
        {"query_id": "q", "rank": 1, "chunk_id": "a", "doc_id": "A"},
    ]
    payload = "\n".join(json.dumps(r) for r in records).encode()
    path = tmp_path / "run.jsonl.gz"
    path.write_bytes(gzip.compress(payload))
    assert list(load_run(path).chunk_id) == ["a", "b"]
    buffer = io.BytesIO(gzip.compress(payload))
    buffer.name = "upload.jsonl.gz"
    assert list(load_run(buffer).chunk_id) == ["a", "b"]


def test_trec_qrels_and_graded_relevance(tmp_path):
    (tmp_path / "qrels.txt").write_text("q 0 manual 2\nq 0 faq 1\nq 0 terms 0\n")
    qrels = load_qrels(tmp_path / "qrels.txt")
    assert list(qrels.doc_id) == ["manual", "faq", "terms"]
    np.testing.assert_array_equal(qrels.relevance, [2, 1, 0])
    assert not qrels.has_chunks


def test_chunk_qrels_take_documents_from_the_map():
    qrels = qrels_from_frame(
        pd.DataFrame({"query_id": ["q", "q"], "chunk_id": ["c1", "c3"], "relevance": [1, 1]}),
        chunk_map={"c1": "A", "c3": "B"},
    )
    assert list(qrels.doc_id) == ["A", "B"] and qrels.has_chunks
    with pytest.raises(ValueError, match="doc_id is empty in rows 1, 2; give a chunk map"):
        qrels_from_frame(pd.DataFrame({"query_id": ["q", "q"], "chunk_id": ["c1", "c3"], "relevance": [1, 1]}))
    with pytest.raises(ValueError, match="relevance is not a number in row 1"):
        qrels_from_frame(pd.DataFrame({"query_id": ["q"], "doc_id": ["A"], "relevance": ["yes"]}))


def test_query_groups_from_qrels_then_run():
    run = run_from_frame(
        pd.DataFrame(
            {
                "query_id": ["q1", "q2", "q2"],
                "rank": [1, 1, 2],
                "chunk_id": ["a", "b", "c"],
                "doc_id": ["A", "B", "C"],
                "topic": ["x", "y", "y"],
            }
        )
    )
    qrels = qrels_from_frame(pd.DataFrame({"query_id": ["q1", "q2"], "doc_id": ["S1", "S2"], "relevance": [1, 1]}))
    np.testing.assert_array_equal(query_groups(run, qrels, "doc_id", np.array(["q2", "q1"])), ["S2", "S1"])
    np.testing.assert_array_equal(query_groups(run, qrels, "topic", np.array(["q1", "q2"])), ["x", "y"])
    with pytest.raises(ValueError, match="'chunk_id' is not a column constant within each query"):
        query_groups(run, qrels, "chunk_id", np.array(["q1", "q2"]))
    # q3 has relevant documents (it is only in the qrels) but the run's topic column cannot place it.
    judged_q3 = qrels_from_frame(
        pd.DataFrame({"query_id": ["q1", "q2", "q3"], "doc_id": ["S1", "S2", "S3"], "relevance": [1, 1, 1]})
    )
    with pytest.raises(ValueError, match=r"group column 'topic' \(run\) has no value for queries q3"):
        query_groups(run, judged_q3, "topic", np.array(["q1", "q2", "q3"]))


def test_queries_without_relevant_documents_need_no_group():
    # q3 is in the run but not in the qrels, q4 only has a non-relevant judgment: both are excluded from
    # every mean, so their missing group is no error (`ragunc recall --group-col` failed on them).
    run = run_from_frame(
        pd.DataFrame(
            {"query_id": ["q1", "q2", "q3"], "rank": [1, 1, 1], "chunk_id": ["a", "b", "c"], "doc_id": ["A", "B", "C"]}
        )
    )
    qrels = qrels_from_frame(
        pd.DataFrame(
            {
                "query_id": ["q1", "q2", "q4"],
                "doc_id": ["S1", "S2", "X"],
                "source": ["s", "s", None],
                "relevance": [1, 1, 0],
            }
        )
    )
    groups = query_groups(run, qrels, "source", np.array(["q1", "q2", "q3", "q4"]))
    np.testing.assert_array_equal(groups, ["s", "s", "q3", "q4"])


# ---------------------------------------------------------------- one meaning of .tsv; TREC from the content

RUN_TABLE = "query_id\trank\tchunk_id\tdoc_id\nq1\t2\tb\tB\nq1\t1\ta\tA\nq2\t1\tc\tC\n"
TREC_RUN = "q1 Q0 b 2 1.5 bm25\nq1 Q0 a 1 2.0 bm25\nq2 Q0 c 1 0.7 bm25\n"
CHUNK_MAP = {"a": "A", "b": "B", "c": "C"}


def test_a_tsv_run_with_a_header_is_a_table(tmp_path):
    # A .tsv was taken for a TREC file: "a TREC file has 6 whitespace-separated columns ..., found 4".
    (tmp_path / "run.tsv").write_text(RUN_TABLE)
    run = load_run(tmp_path / "run.tsv")
    assert run.to_frame().values.tolist() == [["q1", 1, "a", "A"], ["q1", 2, "b", "B"], ["q2", 1, "c", "C"]]
    (tmp_path / "run.tsv.gz").write_bytes(gzip.compress(RUN_TABLE.encode()))
    assert list(load_run(tmp_path / "run.tsv.gz").chunk_id) == ["a", "b", "c"]


@pytest.mark.parametrize("name", ["run.tsv", "run.txt", "run.run", "run"])
def test_a_headerless_trec_run_is_found_by_its_content(tmp_path, name):
    (tmp_path / name).write_text(TREC_RUN.replace(" ", "\t") if name.endswith(".tsv") else TREC_RUN)
    run = load_run(tmp_path / name, chunk_map=CHUNK_MAP)
    assert list(run.chunk_id) == ["a", "b", "c"] and list(run.doc_id) == ["A", "B", "C"]


def test_trec_by_name_and_a_table_by_name(tmp_path):
    (tmp_path / "run.csv").write_text(TREC_RUN)  # headerless content under a table's name
    assert list(load_run(tmp_path / "run.csv", chunk_map=CHUNK_MAP).chunk_id) == ["a", "b", "c"]
    assert list(load_run(tmp_path / "run.csv", chunk_map=CHUNK_MAP, file_type="trec").chunk_id) == ["a", "b", "c"]
    with pytest.raises(DataError, match="missing columns query_id, chunk_id"):  # a table, as named
        load_run(tmp_path / "run.csv", chunk_map=CHUNK_MAP, file_type="tsv")
    with pytest.raises(DataError, match=r"unknown file type 'xml'; use one of csv, parquet, jsonl, trec"):
        load_run(tmp_path / "run.csv", file_type="xml")


@pytest.mark.parametrize("name", ["qrels.tsv", "qrels.txt", "qrels"])
def test_trec_qrels_and_qrels_tables_under_any_text_name(tmp_path, name):
    (tmp_path / name).write_text("q1\t0\tA\t2\nq1\t0\tB\t0\n")
    qrels = load_qrels(tmp_path / name)
    assert list(qrels.doc_id) == ["A", "B"] and qrels.relevance.tolist() == [2.0, 0.0]
    (tmp_path / name).write_text("query_id\tdoc_id\trelevance\nq1\tA\t2\nq1\tB\t0\n")
    assert list(load_qrels(tmp_path / name).doc_id) == ["A", "B"]


def test_a_semicolon_run_and_a_pipe_chunk_map_are_read(tmp_path):
    (tmp_path / "run.csv").write_text(RUN_TABLE.replace("\t", ";"))
    (tmp_path / "map.csv").write_text("chunk_id|doc_id\na|A\nb|B\nc|C\n")
    assert list(load_run(tmp_path / "run.csv", chunk_map=tmp_path / "map.csv").doc_id) == ["A", "B", "C"]


def test_run_errors_are_data_errors_naming_the_rows(tmp_path):
    (tmp_path / "run.csv").write_text("query_id,rank,chunk_id,doc_id\n" + "".join(f"q,x,c{i},D\n" for i in range(8)))
    with pytest.raises(DataError, match=r"run\.csv: column rank is not a number in rows 1, 2, 3, 4, 5 and 3 more$"):
        load_run(tmp_path / "run.csv")


# -- several runs ------------------------------------------------------------------------------------------------

TAGGED_TREC = (
    "q1 Q0 c1 1 2.0 bm25\nq1 Q0 c2 2 1.0 bm25\nq1 Q0 c2 1 3.0 dense\nq1 Q0 c1 2 2.5 dense\nq2 Q0 c3 1 1.0 dense\n"
)


def test_a_trec_file_splits_by_its_tag(tmp_path):
    (tmp_path / "runs.trec").write_text(TAGGED_TREC)
    runs = load_runs(tmp_path / "runs.trec", runs_col="tag", chunk_map={"c1": "A", "c2": "B", "c3": "C"})
    assert list(runs) == ["bm25", "dense"]
    assert list(runs["bm25"].chunk_id) == ["c1", "c2"] and list(runs["bm25"].query_id) == ["q1"]
    assert list(runs["dense"].doc_id) == ["B", "A", "C"] and list(runs["dense"].query_id) == ["q1", "q2"]


def test_one_run_loader_refuses_several_runs_and_names_the_column(tmp_path):
    (tmp_path / "runs.trec").write_text(TAGGED_TREC)
    with pytest.raises(ValueError, match=r"column tag names 2 runs \('bm25', 'dense'\).*--runs-col tag"):
        load_run(tmp_path / "runs.trec", chunk_map={"c1": "A", "c2": "B", "c3": "C"})
    with pytest.raises(ValueError, match=r"column run names 2 runs \('x', 'y'\)"):
        run_from_frame(
            pd.DataFrame({"run": ["x", "y"], "query_id": "q", "rank": [1, 1], "chunk_id": ["a", "b"], "doc_id": "A"})
        )


def test_several_files_are_named_by_their_stems_and_names_must_differ(tmp_path):
    (tmp_path / "a").mkdir()
    for path in ("bm25_k1.2.csv", "dense.csv.gz"):
        frame([("q", 1, "c", "A")]).to_csv(tmp_path / path, index=False)
    (tmp_path / "a" / "dense.jsonl").write_text('{"query_id": "q", "rank": 1, "chunk_id": "c", "doc_id": "A"}\n')
    runs = load_runs([tmp_path / "bm25_k1.2.csv", tmp_path / "dense.csv.gz"])
    assert list(runs) == ["bm25_k1.2", "dense"] and run_name("x/y/run.trec") == "run"
    with pytest.raises(ValueError, match=r"run 'dense' of .*a/dense.jsonl is also in .*dense.csv.gz"):
        load_runs([tmp_path / "dense.csv.gz", tmp_path / "a" / "dense.jsonl"])


def test_errors_in_one_of_several_runs_name_that_run():
    table = pd.DataFrame(
        {"run": ["x", "y", "y"], "query_id": "q", "rank": [1, 1, 1], "chunk_id": ["a", "b", "c"], "doc_id": "A"}
    )
    with pytest.raises(ValueError, match=r"\[run 'y', rows of that run\]: ties without scores: equal rank.*rows 1, 2"):
        runs_from_frame(table, "run")
    with pytest.raises(ValueError, match="column run is empty in row 2"):
        runs_from_frame(table.assign(run=["x", None, "y"]), "run")
