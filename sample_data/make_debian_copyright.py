"""Build the Debian-copyright corpus (documents that are alike) and its per-chunk BM25 results.

Debian's /usr/share/doc/<package>/copyright files share templates and whole licence
paragraphs, and families of packages ship identical files: like annual versions of one
regulatory filing, alike documents compete in search.  Licence texts are
verbatim-redistributable.  The files differ by machine, so the corpus this script wrote is
bundled (debian_copyright.jsonl.gz); rebuild it with

    PYTHONPATH=$PWD python sample_data/make_debian_copyright.py [--corpus-only]

which keeps files of MIN_WORDS..MAX_WORDS words and at most MAX_COPIES identical copies of
one text (in package-name order), then runs ``ragunc chunk-eval`` at 50, 100 and 200 words
and ``ragunc simulate`` at K = 20 for the coverage figures in debian_copyright_meta.json.
"""

from __future__ import annotations

import hashlib
import json
import sys
from collections import Counter
from pathlib import Path

from corpus_sample import chunk_eval, corpus_only, ragunc, write_corpus

HERE = Path(__file__).resolve().parent
CORPUS = HERE / "debian_copyright.jsonl.gz"
META = HERE / "debian_copyright_meta.json"
SOURCE = Path("/usr/share/doc")
MIN_WORDS, MAX_WORDS, MAX_COPIES = 500, 30000, 10
SIZES = (50, 100, 200)
SIMULATE = ("--k", "20", "--reps", "2000", "--boot", "0", "--seed", "0")


def build_corpus() -> dict:
    copies: Counter[str] = Counter()
    rows = []
    for path in sorted(SOURCE.glob("*/copyright")):
        if not path.is_file():  # a dangling symlink of a removed package
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        words = len(text.split())
        digest = hashlib.sha256(text.encode()).hexdigest()
        if not MIN_WORDS <= words <= MAX_WORDS or copies[digest] >= MAX_COPIES:
            continue
        copies[digest] += 1
        # DEP-5 (machine-readable) files follow one template; the others are free-form.
        doc_type = "dep5" if text.lstrip().startswith("Format:") else "free-form"
        rows.append({"doc_id": path.parent.name, "doc_type": doc_type, "text": text})
    write_corpus(rows, CORPUS)
    return {
        "n_docs": len(rows),
        "n_words": sum(len(r["text"].split()) for r in rows),
        "n_distinct_texts": len(copies),
        "doc_types": dict(Counter(r["doc_type"] for r in rows)),
    }


def main() -> None:
    only = corpus_only(__doc__.splitlines()[0])
    corpus = build_corpus()
    if only:
        print(json.dumps(corpus))
        return
    configs = {}
    for words in SIZES:
        out = HERE / f"debian_copyright_{words}w.csv.gz"
        summary, command = chunk_eval(CORPUS, words, out)
        coverage = ragunc("simulate", str(out), *SIMULATE)
        configs[f"{words}w"] = {
            "file": out.name,
            "command": command,
            "n_chunks": summary.get("n_chunks"),
            "hit1": coverage["population"]["value"],
            "coverage_command": f"ragunc simulate {out.name} {' '.join(SIMULATE)}",
            "coverage_k20": {m: coverage["coverage"][m] for m in coverage["coverage"]},
            "deff_variance_ratio": coverage["variance_ratio"],
        }
        print(words, configs[f"{words}w"]["coverage_k20"], file=sys.stderr)
    META.write_text(
        json.dumps(
            {
                "description": "Debian /usr/share/doc/*/copyright files: documents that are alike (shared templates, "
                "shared licence paragraphs, identical files across package families), with per-chunk "
                "BM25 results at 50, 100 and 200 words; one simulated known-item query per chunk.",
                "source": f"{SOURCE}/*/copyright of the machine that ran make_debian_copyright.py",
                "licence": "Each file states the licences of its package; licence texts are verbatim-redistributable, "
                "and the files are redistributed unmodified, as Debian itself does in every package.",
                "selection": {"min_words": MIN_WORDS, "max_words": MAX_WORDS, "max_identical_copies": MAX_COPIES},
                "corpus": {"file": CORPUS.name, **corpus},
                "build_command": "PYTHONPATH=$PWD python sample_data/make_debian_copyright.py",
                "configs": configs,
            },
            indent=2,
        )
        + "\n"
    )


if __name__ == "__main__":
    main()
