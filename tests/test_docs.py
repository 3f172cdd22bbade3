"""The README and docs/: short enough to read in ten minutes, every relative link resolves, and the
README's test command is the one CI runs."""

from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md")), ROOT / "bench" / "RESULTS.md"]
MAX_README_WORDS = 3000

FENCE = re.compile(r"^(```|~~~)")
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
CODE_SPAN = re.compile(r"`[^`]*`")


def prose_lines(text: str) -> list[str]:
    """The lines outside fenced code blocks."""
    lines, fenced = [], False
    for line in text.splitlines():
        if FENCE.match(line.strip()):
            fenced = not fenced
        elif not fenced:
            lines.append(line)
    return lines


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lowercase, punctuation dropped, spaces to hyphens."""
    text = heading.strip().lower().replace("`", "")
    kept = "".join(c for c in text if c in " -_" or unicodedata.category(c)[0] in "LN")
    return kept.replace(" ", "-")


def anchors(path: Path) -> set[str]:
    """Every anchor the headings of a Markdown file define (repeats get -1, -2, ... as on GitHub)."""
    seen: dict[str, int] = {}
    out = set()
    for line in prose_lines(path.read_text(encoding="utf-8")):
        match = re.match(r"^#{1,6}\s+(.*?)\s*#*\s*$", line)
        if match:
            base = slug(match.group(1))
            count = seen.get(base, 0)
            seen[base] = count + 1
            out.add(base if count == 0 else f"{base}-{count}")
    return out


def broken_links(path: Path) -> list[str]:
    """The relative links of a Markdown file whose file or anchor does not exist."""
    broken = []
    for line in prose_lines(path.read_text(encoding="utf-8")):
        for target in LINK.findall(CODE_SPAN.sub("", line)):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file_part, _, anchor = target.partition("#")
            linked = (path.parent / file_part).resolve() if file_part else path
            if not linked.exists():
                broken.append(
                    f"{target} (no file {linked.relative_to(ROOT) if linked.is_relative_to(ROOT) else linked})"
                )
            elif anchor and linked.suffix == ".md" and anchor not in anchors(linked):
                broken.append(f"{target} (no heading #{anchor} in {linked.name})")
    return broken


def test_readme_reads_in_ten_minutes():
    words = len(README.read_text(encoding="utf-8").split())  # as `wc -w` counts them
    assert words <= MAX_README_WORDS, (
        f"README.md has {words:,} words; move detail to docs/ (limit {MAX_README_WORDS:,})"
    )


@pytest.mark.parametrize("path", PAGES, ids=lambda p: str(p.relative_to(ROOT)))
def test_relative_links_resolve(path):
    assert broken_links(path) == []


def test_link_check_catches_a_missing_file_and_a_missing_anchor(tmp_path):
    (tmp_path / "other.md").write_text("# Other page\n\n## Which `interval`, and why?\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n\n"
        "[ok](other.md#which-interval-and-why) [ok](#page) [web](https://example.org/x)\n"
        "[gone](missing.md) [bad anchor](other.md#nowhere)\n\n"
        "```bash\n# not a heading [not a link](nowhere.md)\n```\n"
        "`[in code](nowhere.md)`\n",
        encoding="utf-8",
    )
    found = broken_links(page)
    assert len(found) == 2
    assert found[0].startswith("missing.md") and found[1].startswith("other.md#nowhere")


def test_ci_runs_the_readme_test_command():
    blocks = re.findall(r"```bash\n(.*?)\n```", README.read_text(encoding="utf-8"), flags=re.S)
    tests = [b for b in blocks if "pytest" in b and "requirements-test.txt" in b]
    assert len(tests) == 1, "the README shows one command that installs and runs the test suite"
    lines = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert tests[0] in lines
    ruff = next(i for i, line in enumerate(lines) if "ruff check ." in line and "ruff format --check ." in line)
    assert ruff < lines.index(tests[0]), "ruff runs before the tests"
