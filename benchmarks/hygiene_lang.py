"""Suite `hygiene-lang`: language identifiers side by side, then `[hygiene]`'s cost.

The labelled set is `benchmarks/data/languages.tsv`: 56 languages, for each 10 single
sentences (`short`) and 2 texts of 6 sentences (`long`), taken in file order from
lingua-py's `language-testdata/sentences/` (Leipzig Corpora Collection sentences, which
lingua publishes for its accuracy reports; benchmarks/data/README.md). Each identifier
runs in a process of its own (so its load time and RSS are its own): py3langid (the one
indexer uses), lingua in its high-accuracy and its low-accuracy mode, all languages.
A Norwegian `no` counts as right for `nb`.

The cost is `indexer run --workers 2` over the pipeline suite's generated corpus with
`[hygiene]` all off, each signal alone, and all on (the default), each with a fresh OUT.
"""

from __future__ import annotations

import json
import resource
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks.common import (
    PYTHON,
    fresh_dir,
    measure_quiet,
    run_command,
    table,
    target,
    targets_table,
)
from benchmarks.pipeline import corpus, index_command

DATA = Path(__file__).parent / "data" / "languages.tsv"
DETECTORS = ("py3langid", "lingua-high", "lingua-low")
SETTINGS = {
    "off": {"language": False, "quality": False, "pii": "off"},
    "language": {"language": True, "quality": False, "pii": "off"},
    "quality": {"language": False, "quality": True, "pii": "off"},
    "pii mark": {"language": False, "quality": False, "pii": "mark"},
    "all on (default)": {"language": True, "quality": True, "pii": "mark"},
}


def labelled() -> list[tuple[str, str, str]]:
    """(language, length, text) of every row of the labelled set."""
    rows = DATA.read_text(encoding="utf-8").splitlines()[1:]
    return [tuple(r.split("\t", 2)) for r in rows]  # type: ignore[misc]


def _detector(name: str) -> Any:
    if name == "py3langid":
        from py3langid import langid

        model = langid.LanguageIdentifier.from_modelpath(
            langid.MODEL_DIR / langid.MODEL_FILE, norm_probs=True
        )
        return lambda text: model.classify(text)[0]
    from lingua import LanguageDetectorBuilder

    builder = LanguageDetectorBuilder.from_all_languages()
    if name == "lingua-low":
        builder = builder.with_low_accuracy_mode()
    detector = builder.with_preloaded_language_models().build()

    def detect(text: str) -> str:
        found = detector.detect_language_of(text)
        return "" if found is None else str(found.iso_code_639_1.name.lower())

    return detect


def measure(name: str) -> dict[str, Any]:
    """One identifier over the labelled set: load time, RSS, accuracy and ms per text."""
    started = time.perf_counter()
    detect = _detector(name)
    detect("warm up")
    loaded = time.perf_counter() - started
    right: dict[str, list[int]] = {"short": [0, 0], "long": [0, 0]}
    seconds = {"short": 0.0, "long": 0.0}
    for code, length, text in labelled():
        at = time.perf_counter()
        got = detect(text)
        seconds[length] += time.perf_counter() - at
        right[length][0] += got == code or (code == "nb" and got == "no")
        right[length][1] += 1
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    return {
        "detector": name, "load_s": round(loaded, 2), "rss_mb": round(rss),
        **{f"{k}_accuracy": round(v[0] / v[1], 3) for k, v in right.items()},
        **{f"{k}_ms": round(1000 * seconds[k] / right[k][1], 3) for k in seconds},
    }  # fmt: skip


def _cost(args: Any) -> list[dict[str, Any]]:
    src, _ = corpus(Path(args.workdir), args.mb, args.seed)
    rows: list[dict[str, Any]] = []
    for label, values in SETTINGS.items():
        config = Path(args.workdir) / "hygiene.toml"
        lines = [f"{k} = {json.dumps(v)}" for k, v in values.items()]
        config.write_text("[hygiene]\n" + "\n".join(lines) + "\n")
        out = fresh_dir(Path(args.workdir) / "out-hygiene")

        def once(out: Path = out, config: Path = config) -> Any:
            fresh_dir(out)
            return run_command(index_command(src, out, 2, "--config", str(config)))

        m = measure_quiet(once, args.tries)
        rows.append({"run": label, "wall_s": round(m.wall, 2), "cpu_s": round(m.cpu, 2)})
    base = float(rows[0]["cpu_s"])
    for row in rows:
        row["cpu_over_off"] = f"{100 * (float(row['cpu_s']) / base - 1):+.1f}%"
    return rows


def run(args: Any) -> dict[str, Any]:
    """Each identifier in its own process, then the cost runs (unless `--mb 0`)."""
    detectors = []
    for name in DETECTORS:
        m = run_command([PYTHON, "-m", "benchmarks.hygiene_lang", name])
        detectors.append(json.loads(m.stdout))
    cost = _cost(args) if args.mb > 0 else []
    ours = detectors[0]
    best_short = max(d["short_accuracy"] for d in detectors)
    targets = [
        target("py3langid short accuracy vs the best", ">= best - 0.01", ours["short_accuracy"],
               ours["short_accuracy"] >= best_short - 0.01, ""),
    ]  # fmt: skip
    if cost:
        over = 100 * (cost[-1]["cpu_s"] / cost[0]["cpu_s"] - 1)
        targets.append(target("all on, CPU over off", "<= 20%", over, over <= 20, "%"))
    languages = len({row[0] for row in labelled()})
    return {"languages": languages, "texts": len(labelled()), "detectors": detectors,
            "cost": cost, "mb": args.mb, "targets": targets}  # fmt: skip


def render(result: dict[str, Any]) -> str:
    """The identifiers' table, the cost table and the targets."""
    keys = ("short_accuracy", "long_accuracy", "short_ms", "long_ms", "load_s", "rss_mb")
    rows = [[d["detector"], *(_cell(d[k]) for k in keys)] for d in result["detectors"]]
    out = f"{result['languages']} languages, {result['texts']} texts\n"
    out += table(["detector", *keys], rows)
    if result["cost"]:
        cost_keys = ("wall_s", "cpu_s", "cpu_over_off")
        cost_rows = [[r["run"], *(r[k] for k in cost_keys)] for r in result["cost"]]
        out += f"\n\nindexer run --workers 2, {result['mb']:g} MB corpus, [hygiene]:\n"
        out += table(["[hygiene]", *cost_keys], cost_rows)
    return f"{out}\n\n{targets_table(result['targets'])}"


def _cell(value: Any) -> str:
    return f"{value:.3f}" if isinstance(value, float) else str(value)


def add_arguments(parser: Any) -> None:
    """The suite's flags."""
    parser.add_argument("--mb", type=float, default=20, help="cost corpus size (0: no cost runs)")


if __name__ == "__main__":
    print(json.dumps(measure(sys.argv[1])))
