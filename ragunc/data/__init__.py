"""The data contract: reading files, per-chunk results, runs and qrels, JSON serialisation.

Owns the validation boundary: everything above it assumes clean arrays, and every bad
input is a :class:`DataError` naming the column and the rows.  May import ``stats``
(the per-document sample it builds) and nothing else of ragunc.
"""

from .results import DataError, Results, infer_file_type, load_results, results_from_frame, write_results
from .runs import Qrels, Run, load_chunk_map, load_qrels, load_run, qrels_from_frame, query_groups, run_from_frame
from .serialize import json_text, jsonable
