"""The docs and the packaging say what is true: names, install commands, shown output."""

from __future__ import annotations

import re
import subprocess
import sys
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

import indexer
from indexer._version import OUTPUT_FORMAT

ROOT = Path(__file__).resolve().parents[1]
README = (ROOT / "README.md").read_text(encoding="utf-8")
PROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def _user_texts() -> dict[str, str]:
    """Every text a user reads install advice in: the docs and the package's messages."""
    paths = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
    paths += sorted((ROOT / "indexer").rglob("*.py"))
    return {str(p.relative_to(ROOT)): p.read_text(encoding="utf-8") for p in paths}


def test_the_distribution_name_is_not_the_unrelated_indexer_on_pypi() -> None:
    # "indexer" on PyPI is another project (2009): `pip install 'indexer[dask]'` gets it.
    assert PROJECT["name"] == "corpus-indexer"
    assert PROJECT["scripts"] == {"indexer": "indexer.cli:entry"}


def test_no_text_tells_a_user_to_install_the_unrelated_indexer() -> None:
    wrong = re.compile(r"pip install[^\n`]*?(?<![\w.-])['\"]?indexer(\[|['\"\s]|$)", re.M)
    found = {name: m.group(0) for name, text in _user_texts().items() if (m := wrong.search(text))}
    assert found == {}


def test_the_license_is_an_spdx_string() -> None:
    # A TOML table is deprecated by setuptools (a warning in every install's output).
    assert PROJECT["license"] == "MIT"


def test_the_version_is_written_once() -> None:
    """`indexer.__version__` (in manifests, `--version`) is the installed package's."""
    try:
        installed = version(PROJECT["name"])
    except PackageNotFoundError:
        pytest.skip(f"{PROJECT['name']} is not installed here (a venv made before the rename)")
    assert indexer.__version__ == installed


def test_the_readme_states_the_output_format_the_code_writes() -> None:
    claimed = {int(n) for n in re.findall(r'"output_format": (\d+)', README)}
    assert claimed == {OUTPUT_FORMAT}


def test_the_readme_lists_every_doc_and_no_title_names_an_issue() -> None:
    listed = set(re.findall(r"\]\((docs/[\w-]+\.md)\)", README.split("## Documentation")[1]))
    assert listed == {f"docs/{p.name}" for p in (ROOT / "docs").glob("*.md")}
    for doc in (ROOT / "docs").glob("*.md"):
        title = doc.read_text(encoding="utf-8").splitlines()[0]
        assert not re.search(r"\bissue\b|#\d", title, re.I), (doc.name, title)


@pytest.mark.slow
def test_the_readme_summary_line_is_what_the_demo_corpus_gives(tmp_path: Path) -> None:
    from indexer._corpusgen import write_sample

    write_sample(tmp_path / "sample")
    command = [sys.executable, "-m", "indexer", "run", str(tmp_path / "sample")]
    proc = subprocess.run(
        [*command, "--out", str(tmp_path / "out")], capture_output=True, text=True, check=True
    )
    line = proc.stdout.strip()
    shown = next(x for x in README.splitlines() if x.startswith("indexed "))
    timing = re.compile(r"\d+\.\d s -> \S+$")
    assert timing.sub("", line) == timing.sub("", shown), f"README should show:\n{line}"
