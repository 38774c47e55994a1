"""The README is a front door into the docs site (docs/, built by mkdocs): short, with the
two set-up commands CI runs, a screenshot, and links that lead somewhere.

The site's own links and anchors are checked by `mkdocs build --strict` in `.ci/run`;
these tests hold what the README promises without needing mkdocs installed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = (ROOT / "README.md").read_text(encoding="utf-8")

# [text](target) and ![alt](target), outside code blocks; a target with a scheme leaves the repository.
LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)\)")


def _prose(text: str) -> str:
    """The text outside fenced code blocks."""
    return re.sub(r"^```.*?^```", "", text, flags=re.DOTALL | re.MULTILINE)


def _relative_links(text: str) -> list[str]:
    return [t for t in LINK.findall(_prose(text)) if not re.match(r"[a-z]+:", t)]


def _anchors(markdown: str) -> set[str]:
    """The anchors of a page's headings, as mkdocs (and GitHub) make them: lower case,
    punctuation dropped, spaces to hyphens."""
    anchors = set()
    for line in _prose(markdown).splitlines():
        heading = re.match(r"#{1,6} (.+)", line)
        if heading:
            words = re.sub(r"[^\w\s-]", "", heading.group(1).lower()).strip()
            anchors.add(re.sub(r"\s+", "-", words))
    return anchors


def test_the_readme_is_a_front_door_of_at_most_250_lines() -> None:
    assert len(README.splitlines()) <= 250


def test_the_readme_gives_the_two_set_up_commands_that_ci_runs() -> None:
    """`.ci/run` runs the install command and then exactly `python -m pytest`."""
    block = README[README.index("## Set-up (two commands)") :]
    start = block.index("```sh\n") + 6
    block = block[start : block.index("\n```", start)]
    install, test = block.splitlines()
    assert install.startswith("python3 -m venv .venv && . .venv/bin/activate && pip install -e '.[test]'")
    assert install.endswith("tracker open saves/seraph-vs-sphinx.toml") and (ROOT / "saves" / "seraph-vs-sphinx.toml").is_file()
    assert test == "python -m pytest"
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert "pip install -e '.[test]'" in ci and "\npython -m pytest\n" in ci


def test_the_readme_shows_a_screenshot_of_the_app_from_the_docs() -> None:
    images = re.findall(r"!\[[^\]]*\]\(([^)\s]+)\)", README)
    assert images and all(t.startswith("docs/") and t.endswith(".svg") for t in images)
    for target in images:
        svg = (ROOT / target).read_text(encoding="utf-8")
        assert svg.lstrip().startswith("<svg") and "Seraph" in svg  # the worked example, drawn by the app


@pytest.mark.parametrize("target", sorted(set(_relative_links(README))))
def test_each_link_of_the_readme_leads_to_a_file_and_heading_that_exist(target: str) -> None:
    path, _, anchor = target.partition("#")
    file = ROOT / path
    assert file.exists(), f"the README links to {target}, which is not in the repository"
    if anchor:
        assert anchor in _anchors(file.read_text(encoding="utf-8")), f"{path} has no heading for #{anchor}"


def test_each_page_the_readme_links_to_is_in_the_sites_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {t.partition("#")[0] for t in _relative_links(README) if t.startswith("docs/") and t.partition("#")[0].endswith(".md")}
    assert pages
    for page in pages:
        assert f" {page.removeprefix('docs/')}\n" in nav, f"{page} is linked from the README but not in mkdocs.yml's nav"


# A citation of the design from code, tests, tables and benchmarks: the page's path, '#', a section's anchor.
DESIGN_PAGE = ROOT / "docs" / "contributing" / "design.md"
CITATION = re.compile(r"docs/contributing/design\.md#([a-z0-9-]+)")
SOURCES = [path for folder in ("tracker", "rulesets", "tests", "benchmarks") for suffix in ("*.py", "*.toml") for path in sorted((ROOT / folder).rglob(suffix))]
CITED = sorted({(path.relative_to(ROOT).as_posix(), anchor) for path in SOURCES for anchor in CITATION.findall(path.read_text(encoding="utf-8"))})


def test_the_code_cites_the_design_page() -> None:
    assert len(CITED) >= 20


@pytest.mark.parametrize(("path", "anchor"), CITED)
def test_each_citation_of_the_design_names_a_section_it_has(path: str, anchor: str) -> None:
    """A section's anchor is stated on its heading (`{#timeline}`), so its words may change."""
    stated = set(re.findall(r"^#{1,6} .*\{#([a-z0-9-]+)\}\s*$", DESIGN_PAGE.read_text(encoding="utf-8"), flags=re.MULTILINE))
    assert anchor in stated, f"{path} cites design.md#{anchor}, which is not a section"
