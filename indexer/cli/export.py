"""`indexer export OUT --to parquet|hf DEST`: a committed output as a dataset.

Takes OUT's lock while it reads (a run cannot commit under it; exit 75 while one holds
it). Exit 0, or 2 for no committed output, an output of an older format, or bad flags.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from indexer.cli.exits import Exit
from indexer.cli.parser import Parser
from indexer.export.filters import DUPLICATES


def add_export(sub: argparse._SubParsersAction[Parser]) -> None:
    """Declare the `export` subcommand and its arguments."""
    export = sub.add_parser("export", help="write a committed OUT as parquet or a HF dataset")
    export.add_argument("out", type=Path, metavar="OUT", help="an output folder of indexer run")
    export.add_argument("--to", required=True, nargs=2, metavar=("FORMAT", "DEST"),
                        help="parquet DEST (DEST/documents-*.parquet, DEST/chunks-*.parquet)"
                        " or hf DEST (DEST/data/*.parquet and DEST/README.md)")  # fmt: skip
    export.add_argument("--language", help='only documents in these languages: en,de ("" none)')
    export.add_argument("--status", help="only documents of these statuses: ok,degraded")
    export.add_argument("--min-words", type=int, default=0, help="metadata.quality.words")
    for share in ("mojibake", "replacement", "non_letter", "duplicate_lines", "top_trigram"):
        flag = "--max-" + share.replace("_", "-")
        export.add_argument(flag, type=float, default=1.0, help=f"metadata.quality.{share}")
    export.add_argument("--min-ocr-confidence", type=float, default=-1.0,
                        help="metadata.quality.ocr_confidence (0-100)")  # fmt: skip
    export.add_argument("--duplicates", choices=DUPLICATES, default="keep",
                        help="keep (default); originals: no exact copies (duplicate_of);"
                        " representatives: nor near duplicates, one per cluster")  # fmt: skip


def export_command(args: argparse.Namespace) -> int:
    """Run `indexer export`; return its exit code."""
    from indexer.errors import LockHeld
    from indexer.export import ExportError
    from indexer.export.filters import Filters
    from indexer.pipeline.run.lock import hold

    try:
        from indexer.export.write import export
    except ImportError as exc:  # pyarrow is the `export` extra's
        print(
            f"indexer export: {exc.name} is missing: pip install 'corpus-indexer[export]'",
            file=sys.stderr,
        )
        return Exit.USAGE

    layout, dest = args.to
    if layout not in ("parquet", "hf"):
        print(f"indexer export: --to {layout}: expected parquet or hf", file=sys.stderr)
        return Exit.USAGE
    filters = Filters(
        languages=_names(args.language), statuses=_names(args.status),
        min_words=args.min_words, max_mojibake=args.max_mojibake,
        max_replacement=args.max_replacement, max_non_letter=args.max_non_letter,
        max_duplicate_lines=args.max_duplicate_lines, max_top_trigram=args.max_top_trigram,
        min_ocr_confidence=args.min_ocr_confidence, duplicates=args.duplicates,
    )  # fmt: skip
    if not (args.out / "manifest.json").is_file():
        print(f"indexer export: {args.out} holds no committed output", file=sys.stderr)
        return Exit.USAGE
    try:
        with hold(args.out):
            tally = export(args.out, Path(dest), layout, filters)
    except ExportError as exc:
        print(f"indexer export: {exc}", file=sys.stderr)
        return Exit.USAGE
    except LockHeld:
        print(f"indexer export: a run holds {args.out}: try again after it", file=sys.stderr)
        return Exit.LOCKED
    print(
        f"exported {tally.documents:,} documents, {tally.chunks:,} chunks to {dest}: "
        f"{len(tally.written)} files written, {len(tally.kept)} kept, "
        f"{len(tally.removed)} removed"
    )
    return Exit.OK


def _names(value: str | None) -> tuple[str, ...]:
    return () if value is None else tuple(v.strip() for v in value.split(","))
