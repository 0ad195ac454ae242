"""`scripts/bench SUITE [flags] [--json]`: run one benchmark suite, or `all` of the main ones.

Prints the machine, then the suite's tables (with the load average next to every number),
or with `--json` one JSON object. Generated corpora are cached under `--workdir`. Exit
code 0 (targets missed are reported, not failed), 1 when a suite's outputs disagree, 2 on
bad usage. `scripts/bench SUITE --help` lists a suite's own flags.
"""

from __future__ import annotations

import argparse
import importlib
import json
import sys
from datetime import date
from pathlib import Path
from types import ModuleType
from typing import Any

import indexer
from benchmarks.common import machine

SUITES: dict[str, tuple[str, bool]] = {
    # name: (what it measures, run by `all`); the code is benchmarks/<name>.py
    "kinds": ("single-core throughput of each kind via indexer.extract", True),
    "pipeline": ("indexer run --workers 1/2 vs a loop and the machine's ceiling; RSS", True),
    "incremental": ("first run, unchanged re-run, 1%-changed re-run, and their floors", True),
    "mbox": ("a generated mbox through indexer run, and the split alone", True),
    "pdf": ("pages/s of each PDF engine over the corpus PDFs, on one core", False),
    "engines": ("the local and the dask engine on one corpus, outputs compared", False),
    "html-main": ("main-content extraction vs whole-page HTML and trafilatura", True),
    "archives": ("a zip of ~1,000 mixed files against the same files unpacked", True),
    "pst": ("peak RSS of the Outlook mailbox reader and of a run, per mailbox", False),
    "sheets": ("spreadsheets and RTF against markitdown and kreuzberg; RSS on workbooks", True),
    "office": ("the office formats against markitdown and kreuzberg, words kept", True),
    "ocr": ("scanned pages at 1 and 2 workers; routing; vs the tesseract CLI and kreuzberg", True),
    "chunks": ("chunk sizes per kind, packed against the extractors' blocks", True),
    "large": ("peak RSS of one large document per shape and size, and of its extraction", False),
    "mail-threads": (
        "mail quotes split and threads vs email_reply_parser, mail-parser-reply",
        False,
    ),
    "serve": (
        "indexer serve under load (hostile files mixed in) vs an indexer extract loop",
        False,
    ),
    "shards": ("shards rewritten by one added file and by a night, path-hash cuts vs fixed", False),
    "shards-draws": ("the shards night's bytes over many draws, cut in memory", False),
    "shards-scale": ("smaller shards' cost to a first and an unchanged run of scale's tree", False),
    "hygiene-lang": ("language identifiers' accuracy and speed; [hygiene]'s cost on a run", False),
    "bigtree": ("a tree of GBs of real-size documents: first run, unchanged, a night", False),
    "scale": ("10,000 to 1,000,000 small files: first run, unchanged, a night; RSS, state", False),
    "dedup": ("exact duplicates: a run with and without, a night, the seen table's memory", False),
    "dedup-million": ("the duplicate pass's RSS and tables over 1,000,000 staged documents", False),
}


def suite(name: str) -> ModuleType:
    """The module of suite `name`."""
    return importlib.import_module(f"benchmarks.{name.replace('-', '_')}")


def parser(names: list[str]) -> argparse.ArgumentParser:
    """The command line of suites `names`: the common flags and each suite's own."""
    p = argparse.ArgumentParser(
        prog=f"scripts/bench {'all' if len(names) > 1 else names[0]}",
        description=__doc__.split("\n\n")[0],
        formatter_class=argparse.RawDescriptionHelpFormatter,
        epilog=_listing(),
    )
    p.add_argument("--json", action="store_true", help="print machine-readable results")
    p.add_argument("--workdir", default="/tmp/indexer-bench", help="generated corpora and OUTs")
    p.add_argument("--seed", type=int, default=0, help="seed of the generated corpora")
    p.add_argument("--tries", type=int, default=2, help="re-runs of a run taken while busy")
    for name in names:
        add_arguments = getattr(suite(name), "add_arguments", None)
        if add_arguments is not None and len(names) == 1:
            add_arguments(p)
    return p


def main(argv: list[str] | None = None) -> int:
    """Run the chosen suites; print tables or JSON; return the exit code."""
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] not in (*SUITES, "all"):
        print(f"usage: scripts/bench SUITE [flags] [--json]\n\n{_listing()}")
        return 0 if argv[:1] in (["-h"], ["--help"]) else 2
    names = [n for n, (_, in_all) in SUITES.items() if in_all] if argv[0] == "all" else argv[:1]
    args = parser(names).parse_args(argv[1:])
    defaults = {name: _defaults(name) for name in names}
    # As `indexer run`'s processes do: every in-process rate gets the run's allocator setting.
    indexer.pad_heap()
    Path(args.workdir).mkdir(parents=True, exist_ok=True)
    results: dict[str, Any] = {"date": date.today().isoformat(), "machine": machine()}
    results["args"] = vars(args)
    if not args.json:
        print(f"machine: {results['machine']}", flush=True)
    for name in names:
        results[name] = suite(name).run(argparse.Namespace(**{**defaults[name], **vars(args)}))
        if not args.json:
            print(f"\n== {name} ==\n{suite(name).render(results[name])}", flush=True)
    if args.json:
        print(json.dumps(results, indent=2, default=str))
    return 0 if all(results[name].get("ok", True) for name in names) else 1


def _listing() -> str:
    rows = (f"  {n:<12} {'*' if in_all else ' '} {what}" for n, (what, in_all) in SUITES.items())
    return "suites (`all` runs those marked *, each with its defaults):\n" + "\n".join(rows)


def _defaults(name: str) -> dict[str, Any]:
    """Suite `name`'s own flags at their defaults (what `all` runs it with)."""
    return vars(parser([name]).parse_args([]))


if __name__ == "__main__":
    raise SystemExit(main())
