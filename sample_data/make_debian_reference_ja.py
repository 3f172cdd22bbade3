"""Build the Japanese sample: sections of the Debian Reference in Japanese, and their per-chunk BM25 results.

The Debian Reference (Osamu Aoki, GPL-2+; Debian package ``debian-reference-ja``) is the
administration guide's Japanese translation, as HTML.  Each section of the chosen chapters
(headed ``1.2.`` or ``1.2.3.``) becomes one document, its heading kept as its first line;
sections of fewer than MIN_CHARS characters are dropped.  Rebuild with

    apt-get install debian-reference-ja
    PYTHONPATH=$PWD python sample_data/make_debian_reference_ja.py [--corpus-only]

which writes debian_reference_ja.jsonl.gz, runs ``ragunc chunk-eval`` at 50, 100 and 200 morphemes
(MeCab with UniDic: ``pip install 'ragunc[ja]'``) and writes debian_reference_ja_meta.json.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

from corpus_sample import chunk_eval, corpus_only, write_corpus

from ragunc.corpus.html import html_to_text

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "debian_reference_ja.jsonl.gz"
META = HERE / "debian_reference_ja_meta.json"
PACKAGE = "debian-reference-ja"
SOURCE = Path("/usr/share/debian-reference")
CHAPTERS = ("ch01", "ch02", "ch03", "ch04", "ch05", "ch06")
MIN_CHARS = 200
SIZES = (50, 100, 200)
_HEADING = re.compile(r'<h[23] class="title">')
_NUMBER = re.compile(r"^(\d+(?:\.\d+)+)\.\s")


def sections(chapter: str) -> list[dict]:
    """The chapter's sections: text from one h2/h3 heading to the next."""
    markup = (SOURCE / f"{chapter}.ja.html").read_text(encoding="utf-8")
    starts = [m.start() for m in _HEADING.finditer(markup)]
    rows = []
    for start, end in zip(starts, [*starts[1:], len(markup)]):
        text = html_to_text(markup[start:end])
        number = _NUMBER.match(text)
        if number is None or len("".join(text.split())) < MIN_CHARS:
            continue
        rows.append({"doc_id": number.group(1), "doc_type": chapter, "text": text})
    return rows


def package_version() -> str:
    done = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", PACKAGE], capture_output=True, text=True, check=True)
    return done.stdout.strip()


def build_corpus() -> dict:
    rows = [row for chapter in CHAPTERS for row in sections(chapter)]
    write_corpus(rows, CORPUS)
    return {
        "file": CORPUS.name,
        "n_docs": len(rows),
        "n_chars": sum(len(r["text"]) for r in rows),
        "doc_types": dict(Counter(r["doc_type"] for r in rows)),
    }


def main() -> None:
    only = corpus_only(__doc__.splitlines()[0])
    corpus = build_corpus()
    if only:
        print(json.dumps(corpus))
        return
    configs, language = {}, None
    for size in SIZES:
        out = HERE / f"debian_reference_ja_{size}m.csv.gz"
        summary, command = chunk_eval(CORPUS, size, out)
        language = summary["language"]
        configs[summary["config"]] = {
            "file": out.name,
            "command": command,
            "n_chunks": summary["n_chunks"],
            "hit1": summary["hit1"],
            "doc_hit1": summary["doc_hit1"],
        }
        print(size, configs[summary["config"]], file=sys.stderr)
    META.write_text(
        json.dumps(
            {
                "description": "Sections of the Debian Reference in Japanese (chapters "
                f"{', '.join(c.removeprefix('ch') for c in CHAPTERS)}), one document per section, with "
                "per-chunk BM25 results at 50, 100 and 200 morphemes; one simulated known-item query per chunk.",
                "source": {
                    "package": PACKAGE,
                    "version": package_version(),
                    "files": [f"{SOURCE}/{c}.ja.html" for c in CHAPTERS],
                },
                "licence": "GPL-2+ (Debian Reference, Copyright 2007-2013 Osamu Aoki and its translators; "
                "/usr/share/doc/debian-reference-ja/copyright)",
                "selection": {"chapters": list(CHAPTERS), "min_chars": MIN_CHARS},
                "corpus": {**corpus, "n_units": summary["n_units"]},
                "language": language,
                "build_command": "PYTHONPATH=$PWD python sample_data/make_debian_reference_ja.py",
                "configs": configs,
            },
            indent=2,
            ensure_ascii=False,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
