"""Chunk, index and rank at 100 units: Japanese against English of as many chunks, beside bm25s, in one run.

Japanese is Debian's ``manpages-ja`` (every page under /usr/share/man/ja, rendered by ``man``);
English is Debian's English man pages, those of the same names first, then the others in name
order, until they make as many 100-word chunks as the Japanese make 100-morpheme chunks.  Both
are rendered once and kept under ``--cache``.  For each language, in this run:

- the analyser's own time: segmenting every document and nothing else;
- ``chunk_eval`` at 100 units from a loaded corpus (analyse, chunk, index, simulate and rank
  one known-item query per chunk), end to end, and its steps timed one by one;
- bm25s on the same chunk terms and queries: index, then the top 100 of every query.

Target: Japanese end to end within 3x English at the same number of chunks.

``--compare-analysers`` also compares the Japanese segmenters (needs SudachiPy and
sudachidict-core besides ragunc[ja]) on the rendered pages: characters segmented per second,
and doc Recall@10 of BM25 over 100-unit chunks for the description of each page's NAME line
as the query (the page without that line as the document), whitespace runs as the baseline.

Run: ``python bench/bench_languages.py [--compare-analysers]`` (first run: ``apt-get install
manpages-ja manpages``; rendering takes minutes, then it is cached).
"""

from __future__ import annotations

import argparse
import gzip
import json
import os
import platform
import re
import signal
import subprocess
import time
import unicodedata
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import numpy as np

from ragunc.corpus.language import choose_language
from ragunc.corpus.loaders import load_corpus
from ragunc.corpus.model import Corpus
from ragunc.retrieval.bm25 import build_index, bm25_index, rank_targets, top_k
from ragunc.retrieval.chunking import chunk_corpus
from ragunc.retrieval.pipeline import chunk_eval_parts, simulated_queries
from ragunc.retrieval.tokens import tokenize_corpus

MAN = Path("/usr/share/man")
UNITS = 100
RENDER_TIMEOUT = 60  # seconds; a few pages send groff into a loop


CPU: dict[str, float] = {}  # CPU seconds of the last call timed under each name (load barely moves them)


def timed(fn, *args, name: str | None = None, **kwargs):
    """``(result, wall seconds)``; the CPU seconds (all threads) go to ``CPU[name]``."""
    start, cpu = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    if name is not None:
        CPU[name] = time.process_time() - cpu
    return out, time.perf_counter() - start


def _render(page: Path) -> str:
    """A man page as plain text (``man -l``), empty when it does not render in time."""
    env = {**os.environ, "LANG": "C.UTF-8", "MANWIDTH": "80", "MAN_KEEP_FORMATTING": ""}
    with subprocess.Popen(
        ["man", "-l", str(page)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env, start_new_session=True
    ) as child:
        try:
            out, _ = child.communicate(timeout=RENDER_TIMEOUT)
        except subprocess.TimeoutExpired:
            os.killpg(child.pid, signal.SIGKILL)  # man and the groff pipeline it started
            child.communicate()
            return ""
    return out.decode("utf-8", "replace")


def _pages(root: Path) -> list[Path]:
    """Every page file under ``root``'s man1..man8 (links to another page left out), by name."""
    return sorted(
        (p for p in root.glob("man[1-8]/*") if p.is_file() and not p.is_symlink()),
        key=lambda p: (p.name, p.parent.name),
    )


def _write(rows: list[dict], path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with gzip.open(path, "wt", encoding="utf-8") as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def _rows(pages: list[Path]) -> list[dict]:
    with ThreadPoolExecutor(2) as pool:
        texts = list(pool.map(_render, pages))
    return [
        {"doc_id": f"{p.parent.name}/{p.name.removesuffix('.gz')}", "doc_type": p.parent.name, "text": t}
        for p, t in zip(pages, texts)
        if t.strip()
    ]


def japanese_corpus(cache: Path) -> Path:
    path = cache / "manpages-ja.jsonl.gz"
    if not path.exists():
        _write(_rows(_pages(MAN / "ja")), path)
    return path


def english_corpus(cache: Path, japanese: Corpus, n_units: int) -> Path:
    """English pages, the Japanese pages' names first, until they hold ``n_units`` words."""
    path = cache / f"manpages-en-{n_units}.jsonl.gz"
    if path.exists():
        return path
    names = {doc_id.split("/", 1)[1] for doc_id in japanese.doc_ids}
    pages = _pages(MAN)
    pages = [p for p in pages if p.name.removesuffix(".gz") in names] + [
        p for p in pages if p.name.removesuffix(".gz") not in names
    ]
    rows, words, start = [], 0, 0
    while words < n_units and start < len(pages):
        batch = _rows(pages[start : start + 200])
        start += 200
        for row in batch:
            if words < n_units:
                rows.append(row)
                words += len(row["text"].split())
    _write(rows, path)
    return path


def measure(corpus: Corpus, label: str) -> dict:
    """The analyser alone, then chunk_eval end to end and step by step, and bm25s on the same terms."""
    choice = choose_language(corpus.texts)
    analyser = choice.language.analyser()
    segment = analyser.segments if hasattr(analyser, "segments") else str.split
    _, t_segment = timed(lambda: [segment(t) for t in corpus.texts], name="segment")
    parts, t_total = timed(chunk_eval_parts, corpus, chunk_words=UNITS, rng=0, name="end_to_end")
    tokens, t_analyse = timed(tokenize_corpus, corpus)
    chunks, t_chunk = timed(chunk_corpus, tokens, UNITS)
    (ids, offsets, vocabulary), t_terms = timed(tokens.chunk_terms, chunks)
    index, t_index = timed(build_index, ids, offsets, vocabulary)
    queries, t_queries = timed(simulated_queries, parts.retrieval, rng=0)
    _, t_rank = timed(rank_targets, index, queries.matrix, queries.source)

    import bm25s

    terms = np.asarray(vocabulary, dtype=object)
    chunk_terms = [list(terms[ids[offsets[i] : offsets[i + 1]]]) for i in range(len(chunks))]
    query_terms = [q.split() for q in queries.texts]

    def run_bm25s():
        model = bm25s.BM25(k1=1.5, b=0.75, method="robertson")
        model.index(chunk_terms, show_progress=False)
        return model.retrieve(query_terms, k=100, show_progress=False)

    _, t_bm25s = timed(run_bm25s, name="bm25s_index_and_top100")
    _, t_ours_same = timed(
        lambda: rank_targets(bm25_index(chunk_terms), index.query_matrix(query_terms), queries.source),
        name="ours_index_and_rank_same_terms",
    )
    return {
        "label": label,
        "language": choice.to_dict(),
        "n_docs": len(corpus),
        "n_units": tokens.n_units,
        "n_chunks": len(chunks),
        "chars_per_chunk": float(np.median([len(t) for t in chunks.texts])),
        "hit1": float(parts.results["y"].mean()),
        "seconds": {
            "end_to_end": t_total,
            "segment": t_segment,
            "analyse": t_analyse,
            "chunk": t_chunk,
            "chunk_terms": t_terms,
            "index": t_index,
            "queries": t_queries,
            "rank": t_rank,
            "ours_index_and_rank_same_terms": t_ours_same,
            "bm25s_index_and_top100": t_bm25s,
        },
        "cpu_seconds": dict(CPU),
    }


# ---------------------------------------------------------------------------------------------- analysers


_NAME = re.compile(r"^(名前|NAME)\s*\n\s+(?P<line>.+?)\n\s*\n", re.MULTILINE)
_WORD_CHAR = re.compile(r"\w")


def _segmenters() -> dict:
    """Segmenters of Japanese text, each ``text -> list of segments``."""
    import fugashi
    import unidic_lite

    out = {}
    wakati = fugashi.GenericTagger(f'-d "{unidic_lite.DICDIR}" -r "{unidic_lite.DICDIR}/mecabrc" -Owakati')
    out["fugashi + unidic-lite (ragunc)"] = lambda text: wakati.parse(text).split()
    out["whitespace runs (no analyser)"] = str.split
    try:
        from sudachipy import Dictionary, SplitMode
    except ImportError:
        print("SudachiPy is not installed: only fugashi is measured")
        return out
    dictionary = Dictionary(dict="core")
    for mode in ("A", "C"):
        tokenizer = dictionary.tokenizer(mode=getattr(SplitMode, mode))
        # Sudachi refuses inputs of more than 49,149 bytes: it reads line by line.
        out[f"SudachiPy + sudachidict-core, mode {mode}"] = lambda text, t=tokenizer: [
            m.surface() for line in text.splitlines() if line.strip() for m in t.tokenize(line)
        ]
    return out


def _terms(segments: list[str]) -> list[str]:
    terms = (unicodedata.normalize("NFKC", s).lower() for s in " ".join(segments).split())
    return [t for t in terms if _WORD_CHAR.search(t)]


def compare_analysers(corpus: Corpus) -> list[dict]:
    """Each segmenter's speed on every page, and doc Recall@10 for the NAME-line description as the query."""
    queries, bodies = [], []
    for text in corpus.texts:
        name = _NAME.search(text)
        if name and " - " in name["line"]:
            queries.append(name["line"].split(" - ", 1)[1])
            bodies.append(text[: name.start()] + text[name.end() :])
    n_chars = sum(len("".join(t.split())) for t in corpus.texts)
    results = []
    for label, segment in _segmenters().items():
        segmented, seconds = timed(lambda: [segment(t) for t in corpus.texts], name=label)
        n_units = sum(len(" ".join(s).split()) for s in segmented)
        chunk_terms, owner = [], []
        for doc, body in enumerate(bodies):
            units = " ".join(segment(body)).split()
            for start in range(0, max(len(units), 1), UNITS):
                chunk_terms.append(_terms(units[start : start + UNITS]))
                owner.append(doc)
        index = bm25_index(chunk_terms)
        positions, _ = top_k(index, index.query_matrix([_terms(segment(q)) for q in queries]), 10)
        found = (np.asarray(owner)[positions] == np.arange(len(queries))[:, None]).any(axis=1)
        results.append(
            {
                "analyser": label,
                "seconds": seconds,
                "cpu_seconds": CPU[label],
                "chars_per_second": n_chars / seconds,
                "chars_per_cpu_second": n_chars / CPU[label],
                "chars_per_unit": n_chars / n_units,
                "n_queries": len(queries),
                "doc_recall_at_10": float(found.mean()),
            }
        )
        print(
            f"  {label:<44} {n_chars / seconds / 1e3:8.0f} k chars/s ({n_chars / CPU[label] / 1e3:.0f} k per CPU "
            f"second)  {n_chars / n_units:5.2f} chars/unit  "
            f"doc Recall@10 {found.mean():.3f} ({len(queries)} queries)"
        )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--cache",
        type=Path,
        default=Path.home() / ".cache" / "ragunc-bench",
        help="where the rendered corpora are kept (default %(default)s)",
    )
    parser.add_argument("--compare-analysers", action="store_true", help="also compare Japanese segmenters")
    parser.add_argument("--json", type=Path, help="also write the figures to this file")
    args = parser.parse_args()
    japanese = load_corpus(japanese_corpus(args.cache))
    n_units = int(tokenize_corpus(japanese).n_units)
    english = load_corpus(english_corpus(args.cache, japanese, n_units))
    report = {
        "machine": f"{platform.node()}, {os.cpu_count()} cores, Python {platform.python_version()}",
        "load_average_before": os.getloadavg(),
    }
    report["languages"] = [measure(japanese, "manpages-ja"), measure(english, "English man pages")]
    ja, en = report["languages"]
    report["ratio_ja_to_en_end_to_end"] = ja["seconds"]["end_to_end"] / en["seconds"]["end_to_end"]
    report["ratio_ja_to_en_per_chunk"] = report["ratio_ja_to_en_end_to_end"] * en["n_chunks"] / ja["n_chunks"]
    report["ratio_ja_to_en_cpu"] = ja["cpu_seconds"]["end_to_end"] / en["cpu_seconds"]["end_to_end"]
    if args.compare_analysers:
        print("Japanese analysers on manpages-ja:")
        report["analysers"] = compare_analysers(japanese)
    report["load_average_after"] = os.getloadavg()
    for lang in report["languages"]:
        s = lang["seconds"]
        print(
            f"{lang['label']:<18} {lang['language']['code']}: {lang['n_docs']:,} docs, {lang['n_units']:,} "
            f"{lang['language']['unit']}, {lang['n_chunks']:,} chunks of {UNITS} (median {lang['chars_per_chunk']:.0f} "
            f"chars)\n  end to end {s['end_to_end']:.2f} s (segmenting alone {s['segment']:.2f} s = "
            f"{s['segment'] / s['end_to_end']:.0%}); analyse {s['analyse']:.2f}, chunk {s['chunk']:.2f}, "
            f"terms {s['chunk_terms']:.2f}, index {s['index']:.2f}, queries {s['queries']:.2f}, "
            f"rank {s['rank']:.2f}; CPU end to end {lang['cpu_seconds']['end_to_end']:.2f} s, segmenting "
            f"{lang['cpu_seconds']['segment']:.2f} s\n  on the same terms: ragunc index + rank {s['ours_index_and_rank_same_terms']:.2f} s,"
            f" bm25s index + top-100 {s['bm25s_index_and_top100']:.2f} s "
            f"(ragunc {s['bm25s_index_and_top100'] / s['ours_index_and_rank_same_terms']:.1f}x faster)"
        )
    print(
        f"Japanese / English end to end: {report['ratio_ja_to_en_end_to_end']:.2f}x at "
        f"{ja['n_chunks']:,} vs {en['n_chunks']:,} chunks ({report['ratio_ja_to_en_per_chunk']:.2f}x per chunk, "
        f"{report['ratio_ja_to_en_cpu']:.2f}x in CPU seconds; target <= 3x)"
    )
    print(f"load average {report['load_average_before']} -> {report['load_average_after']}")
    if args.json:
        args.json.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
