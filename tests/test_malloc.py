"""Workers keep their heap between documents (`indexer._malloc.pad_heap`).

Measured by the page faults extracting the same web page again costs: with glibc's
defaults each document faults its heap in anew; in a padded process it is reused.
"""

from __future__ import annotations

import os
import platform
import random
import resource
import subprocess
import sys
from pathlib import Path

import pytest

from indexer import Options, extract
from indexer._corpusgen import _html
from indexer.procpool.pool import WorkerPool

WHOLE_PAGE = Options(html_main_content=False)
"""The renderer this padding was measured on; main-content extraction faults less."""

glibc_only = pytest.mark.skipif(
    not sys.platform.startswith("linux") or platform.libc_ver()[0] != "glibc",
    reason="the setting is glibc's",
)

PAGES = 2000
"""Enough pages held at once for glibc's defaults to trim the heap after each one
(2-20 faults a page here, with the heap's layout; at 300 pages none)."""


def faults_per_page(pages: int = PAGES) -> float:
    """Minor page faults per extraction of a generated web page (each a different one,
    as in an archive), after a warm-up. Module-level, so a worker process can run it."""
    rng = random.Random(7)
    corpus = [_html(rng, i) for i in range(pages)]
    for page in corpus[:20]:
        extract("page.html", page, WHOLE_PAGE)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for page in corpus:
        extract("page.html", page, WHOLE_PAGE)
    return (resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before) / pages


@glibc_only
async def test_a_worker_reuses_its_heap_from_one_document_to_the_next() -> None:
    async with WorkerPool(size=1) as pool:
        faults = await pool.run(faults_per_page)
    assert faults < 0.5  # 0.01 measured; 2-20 unpadded, depending on the heap's layout


@pytest.mark.slow  # workers extracting a page again and again
@glibc_only
def test_with_glibc_defaults_every_page_faults_its_heap_in_again() -> None:
    """The control for the test above: the same measure, in a process left with
    glibc's defaults, counts many times the faults it counts once padded (so the
    measure can fail). How many depends on the heap's layout: 2 to 20 a page here."""
    code = (
        "import indexer, test_malloc\n"
        "before = test_malloc.faults_per_page()\n"
        "indexer.pad_heap()\n"
        "print(before, test_malloc.faults_per_page())\n"
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MALLOC_", "GLIBC_TUN"))}
    done = subprocess.run(
        [sys.executable, "-c", code],
        cwd=Path(__file__).parent,
        env=env,
        capture_output=True,
        text=True,
        check=True,
    )
    before, after = map(float, done.stdout.split())
    assert before > 0.5
    assert before > 20 * after
