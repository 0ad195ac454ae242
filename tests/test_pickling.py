"""The slotted-dataclass pickling used for what crosses worker pipes."""

from __future__ import annotations

import pickle
from dataclasses import dataclass

import pytest

from indexer._pickling import slotted_state
from indexer.pipeline.extract.tasks import Finished
from indexer.pipeline.output.records import Rendered
from indexer.registry import default_registry


def test_results_survive_the_pipe_equal() -> None:
    doc = Rendered(
        path="box.mbox#3", doc_id="a" * 24, block=b'{"x":1}\n', count=1, digest="d" * 32,
        line=b'{"path":"box.mbox#3"}\n', status="ok", kind="eml", pages=2, seconds=0.5,
    )  # fmt: skip
    done = Finished(docs=(doc, doc), deps=("k1", "k2"), pending=None, seconds=1.5, sha256="s")
    back = pickle.loads(pickle.dumps(done, protocol=pickle.HIGHEST_PROTOCOL))
    assert back == done
    assert back.docs[0] is back.docs[1]  # pickle's memo still shares repeated objects


def test_frozen_classes_stay_frozen_after_unpickling() -> None:
    @slotted_state
    @dataclass(frozen=True, slots=True)
    class Pair:
        a: int
        b: str

    globals()["Pair"] = Pair  # picklable by reference
    Pair.__qualname__ = "Pair"
    back = pickle.loads(pickle.dumps(Pair(1, "x")))
    assert (back.a, back.b) == (1, "x")
    with pytest.raises(AttributeError):
        back.a = 2  # type: ignore[misc]


def test_a_single_field_class_is_refused() -> None:
    @dataclass(frozen=True, slots=True)
    class One:
        a: int

    with pytest.raises(TypeError, match="two fields"):
        slotted_state(One)


def test_extractor_specs_cross_the_pipe_whole() -> None:
    """Every job carries its spec; it comes back equal, functions and all."""
    for spec in default_registry().extractors():
        back = pickle.loads(pickle.dumps(spec, protocol=pickle.HIGHEST_PROTOCOL))
        assert back == spec  # name, version, flags and functions (by module and name)
