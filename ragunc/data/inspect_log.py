"""Inspect AI evaluation logs (``.eval`` archives, ``.json`` logs) read as per-row results, without inspect_ai.

One row per sample and epoch: ``y`` is a scorer's value (``scorer=``, default the log's first)
turned into a number by Inspect's own ``value_to_float`` rule (C 1, P 0.5, I and N 0, yes/true 1,
no/false 0, numbers and numeric text as they are); ``doc_id`` is the sample id's prefix (up to
its last ``-``, ``_``, ``:`` or ``/``; an id without one is its own document) unless a
``columns={"doc_id": "metadata.doc_id"}`` mapping names a metadata field; ``config`` is the log's
task and model.  Every scalar metadata field is a column ``metadata.<key>``.

A ``.eval`` file is a zip archive of JSON (``header.json``, ``samples/<id>_epoch_<n>.json``),
its members stored with deflate or, by recent Inspect versions, Zstandard: the latter needs the
``zstandard`` package (``pip install ragunc[inspect]``), which is all this reader asks for.

What Inspect recorded beside its samples (each scorer's ``stderr``, and the metadata field it
clustered by) is kept in :class:`InspectLog`, so a report shows it beside ragunc's intervals.
"""

from __future__ import annotations

import io
import json
import math
import re
import struct
import zipfile
import zlib
from dataclasses import dataclass, replace

import pandas as pd

from .reader import DataError, listing

ZIP_MAGIC = b"PK\x03\x04"
_ZSTD = 93  # the zip compression method number of Zstandard
_PREFIX = re.compile(r"^(.*)[-_:/][^-_:/]*$")


@dataclass(frozen=True)
class RecordedStderr:
    """A standard error Inspect computed and wrote in the log's results, for one scorer."""

    scorer: str
    value: float
    cluster: str | None  # the metadata field ``stderr(cluster=...)`` named; None: samples independent
    n_samples: int  # the samples it was computed on (epochs reduced first)
    epochs: int
    reducer: str | None  # how epochs were reduced to one score per sample ("mean" by default)
    clustered_by: str = "the sample id's prefix"  # what ragunc's doc_id was read from

    def reading(self, se: float, *, estimator: str, fpc: bool) -> str:
        """One sentence: Inspect's stderr beside ragunc's cluster SE ``se``, and why they differ when they do.

        They are one formula (the clustered sandwich with the C/(C-1) correction, Inspect's epochs
        reduced by their mean weighing every sample as its epochs' rows do) when ragunc clusters by
        the field Inspect did, estimates the micro mean and applies no FPC.
        """
        theirs = f"by metadata {self.cluster}" if self.cluster else "with samples independent"
        head = f"Inspect recorded stderr {self.value:.4f} for {self.scorer} ({theirs}); ragunc's cluster SE {se:.4f}"
        reasons = []
        if self.cluster is None:
            reasons.append("Inspect's stderr has no cluster= and so ignores that samples of one document move together")
        elif self.clustered_by != f"metadata.{self.cluster}":
            reasons.append(f"ragunc clusters by {self.clustered_by}, Inspect by metadata.{self.cluster}")
        if estimator != "micro":
            reasons.append("the macro estimate weighs documents equally where Inspect weighs samples")
        if fpc:
            reasons.append("ragunc applies the finite-population correction")
        if self.reducer not in (None, "mean"):
            reasons.append(f"Inspect reduced the epochs by {self.reducer}, ragunc keeps every epoch's row")
        if math.isclose(se, self.value, rel_tol=1e-9, abs_tol=1e-15):
            return head + ": the same formula, the same value."
        if not reasons:
            return head + ": they should agree and do not (were samples dropped, or scores edited after the run?)."
        return head + ": they differ because " + "; ".join(reasons) + "."

    def to_dict(self) -> dict:
        return {
            "scorer": self.scorer,
            "stderr": self.value,
            "cluster": self.cluster,
            "n_samples": self.n_samples,
            "epochs": self.epochs,
            "reducer": self.reducer,
            "clustered_by": self.clustered_by,
        }


@dataclass(frozen=True)
class InspectLog:
    """A log's rows (contract names where they exist) and what Inspect recorded for the scorer read."""

    frame: pd.DataFrame
    config: str
    scorer: str
    scorers: tuple[str, ...]  # every scorer of the log, in its order
    recorded: RecordedStderr | None


def is_inspect_log(head: bytes, name: str) -> bool:
    """Whether a file's first bytes are an Inspect log: a zip archive, or a JSON object opening with its fields."""
    if head.startswith(ZIP_MAGIC):
        return name.lower().endswith(".eval") or b"header.json" in head or b"_journal/" in head
    text = head[:4096].decode("utf-8", errors="replace").lstrip()
    return text.startswith("{") and '"eval"' in text and '"version"' in text and '"status"' in text


def value_to_float(value) -> float:
    """Inspect's default ``value_to_float``: C 1, P 0.5, I and N 0, numbers, yes/true, no/false, numeric text."""
    if value == "C":
        return 1.0
    if value == "P":
        return 0.5
    if value in ("I", "N"):
        return 0.0
    if isinstance(value, (int, float, bool)):
        return float(value)
    if isinstance(value, str):
        low = value.lower()
        if low in ("yes", "true"):
            return 1.0
        if low in ("no", "false"):
            return 0.0
        try:
            number = float(low)
        except ValueError:
            return math.nan
        return number if math.isfinite(number) else math.nan
    return math.nan


def read_inspect_log(data: bytes, name: str, *, scorer: str | None = None, columns=None) -> InspectLog:
    """The rows of an Inspect log held in ``data`` (``name`` as errors say it); see the module docstring."""
    header, samples = _archive(data, name) if data.startswith(ZIP_MAGIC) else _json_log(data, name)
    eval_ = header.get("eval") or {}
    config = f"{eval_.get('task', 'task')} ({eval_.get('model', 'model')})"
    if not samples:
        raise DataError(f"{name}: an Inspect log without samples (was it written with log_samples=False?)")
    scorers = tuple(dict.fromkeys(k for s in samples for k in (s.get("scores") or {})))
    if not scorers:
        raise DataError(f"{name}: no sample of this Inspect log has a score")
    chosen = scorers[0] if scorer is None else scorer
    if chosen not in scorers:
        raise DataError(f"{name}: no scorer {chosen!r} in this Inspect log; its scorers are {listing(scorers)}")
    rows = []
    for s in samples:
        score = (s.get("scores") or {}).get(chosen)
        meta = {f"metadata.{k}": v for k, v in (s.get("metadata") or {}).items() if _scalar(v)}
        sample_id = str(s.get("id"))
        rows.append(
            {
                "sample_id": sample_id,
                "epoch": int(s.get("epoch", 1)),
                "chunk_id": f"{sample_id} epoch {s.get('epoch', 1)}",
                "y": None if score is None else value_to_float(score.get("value")),
                **meta,
            }
        )
    frame = pd.DataFrame(rows)
    unscored = frame["y"].isna().to_numpy()
    if unscored.any():
        bad = frame.loc[unscored, "chunk_id"].head(5).tolist()
        raise DataError(
            f"{name}: scorer {chosen!r} gives {int(unscored.sum())} sample(s) no value Inspect's value_to_float "
            f"turns into a number (e.g. {listing(bad)})"
        )
    if "doc_id" not in (columns or {}):
        frame["doc_id"] = [_prefix(i) for i in frame["sample_id"]]
    frame["config"] = config
    recorded = _recorded(header, chosen, len(samples))
    if recorded is not None and "doc_id" in (columns or {}):
        recorded = replace(recorded, clustered_by=columns["doc_id"])
    return InspectLog(frame, config, chosen, scorers, recorded)


def _scalar(v) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _prefix(sample_id: str) -> str:
    match = _PREFIX.match(sample_id)
    return match.group(1) if match and match.group(1) else sample_id


def _recorded(header: dict, scorer: str, n_rows: int) -> RecordedStderr | None:
    results = header.get("results") or {}
    config = (header.get("eval") or {}).get("config") or {}
    epochs = int(config.get("epochs") or 1)
    for s in results.get("scores") or []:
        if s.get("name") != scorer:
            continue
        for m in (s.get("metrics") or {}).values():
            if m.get("name") == "stderr" and m.get("value") is not None:
                return RecordedStderr(
                    scorer=scorer,
                    value=float(m["value"]),
                    cluster=(m.get("params") or {}).get("cluster"),
                    n_samples=int(s.get("scored_samples") or n_rows // epochs),
                    epochs=epochs,
                    reducer=s.get("reducer") or (None if epochs == 1 else "mean"),
                )
    return None


def _json_log(data: bytes, name: str) -> tuple[dict, list[dict]]:
    try:
        log = json.loads(data.decode("utf-8-sig"))
    except UnicodeDecodeError:
        raise DataError(f"{name}: an Inspect JSON log that is not UTF-8 text") from None
    except json.JSONDecodeError as exc:
        raise DataError(f"{name}: line {exc.lineno} is not valid JSON (the log is cut short or damaged)") from None
    if not isinstance(log, dict) or "eval" not in log:
        raise DataError(f"{name}: not an Inspect log (a JSON object with 'eval' and 'samples')")
    return log, list(log.get("samples") or [])


def _archive(data: bytes, name: str) -> tuple[dict, list[dict]]:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
        members = {i.filename: i for i in archive.infolist()}
        if "header.json" in members:
            header = _member_json(archive, members["header.json"], data, name)
        elif "_journal/start.json" in members:  # a log still being written: no results yet
            header = _member_json(archive, members["_journal/start.json"], data, name)
        else:
            raise DataError(f"{name}: a zip archive without header.json: not an Inspect .eval log")
        samples = [
            _member_json(archive, info, data, name)
            for path, info in members.items()
            if path.startswith("samples/") and path.endswith(".json")
        ]
    except zipfile.BadZipFile:
        raise DataError(f"{name}: not a readable .eval archive (a damaged or cut zip file)") from None
    samples.sort(key=lambda s: (int(s.get("epoch", 1)), str(s.get("id"))))
    return header, samples


def _member_json(archive: zipfile.ZipFile, info: zipfile.ZipInfo, data: bytes, name: str):
    if info.compress_type == _ZSTD:
        raw = _zstd_member(info, data, name)
    else:
        try:
            raw = archive.read(info)
        except (NotImplementedError, zlib.error) as exc:
            raise DataError(f"{name}: member {info.filename} cannot be read ({exc})") from None
    try:
        return json.loads(raw)
    except json.JSONDecodeError as exc:
        raise DataError(f"{name}: member {info.filename} is not valid JSON ({exc.msg})") from None


def _zstd_member(info: zipfile.ZipInfo, data: bytes, name: str) -> bytes:
    try:
        import zstandard
    except ImportError:
        raise DataError(
            f"{name}: this .eval archive is compressed with Zstandard; pip install zstandard "
            "(or ragunc[inspect]) to read it"
        ) from None
    # The local header: 30 bytes, then the name and an extra field of the lengths it gives.
    start = info.header_offset
    name_len, extra_len = struct.unpack("<HH", data[start + 26 : start + 30])
    body = start + 30 + name_len + extra_len
    try:
        return zstandard.ZstdDecompressor().decompress(
            data[body : body + info.compress_size], max_output_size=info.file_size
        )
    except zstandard.ZstdError as exc:
        raise DataError(f"{name}: member {info.filename} is a damaged Zstandard stream ({exc})") from None
