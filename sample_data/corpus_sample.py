"""What the corpus-sample scripts (make_debian_copyright.py, make_debian_reference_ja.py) share: the corpus
file, the ``ragunc`` CLI run as a subprocess, and ``ragunc chunk-eval`` at one chunk size with the command
recorded in the sample's metadata."""

from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
from pathlib import Path


def corpus_only(description: str) -> bool:
    """The scripts' one option: ``--corpus-only`` rebuilds the corpus file only."""
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--corpus-only", action="store_true", help="rebuild the corpus file only")
    return parser.parse_args().corpus_only


def write_corpus(rows: list[dict], path: Path) -> None:
    """``rows`` (doc_id, doc_type, text) as gzipped JSON lines."""
    with gzip.open(path, "wt", encoding="utf-8", compresslevel=9) as out:
        for row in rows:
            out.write(json.dumps(row, ensure_ascii=False) + "\n")


def ragunc(*argv: str) -> dict:
    """``ragunc ARGV --json``'s output."""
    done = subprocess.run([sys.executable, "-m", "ragunc", *argv, "--json"], check=True, capture_output=True, text=True)
    return json.loads(done.stdout)


def chunk_eval(corpus: Path, size: int, out: Path) -> tuple[dict, str]:
    """``ragunc chunk-eval`` of ``corpus`` at ``size`` units per chunk into ``out``: its summary, and the
    command as the metadata records it (file names without their folders)."""
    command = ["chunk-eval", str(corpus), "--chunk-words", str(size), "--seed", "0", "--out", str(out), "--no-progress"]
    summary = ragunc(*command)
    return summary, "ragunc " + " ".join(c if not c.startswith("/") else Path(c).name for c in command)
