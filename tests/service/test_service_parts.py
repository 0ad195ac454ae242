"""The service's parts without a server: request options, admission, the schema."""

from __future__ import annotations

from pathlib import Path

import pytest

from indexer.config import load_config
from indexer.service.app import create_app
from indexer.service.extractor import Extractor
from indexer.service.limits import Admission, Limits
from indexer.service.onefile import Choices, one_file_config
from indexer.service.openapi import schema
from indexer.service.upload import BadRequest, choices_of

LIMITS = Limits(max_body=1000, running=2, waiting=1, request_timeout=5)


def test_query_parameters_are_indexer_extract_flags() -> None:
    got = choices_of({"name": "a.pdf", "pdf_engine": "pdfplumber", "ocr": "off", "whole_page": "1"})
    assert got == Choices(pdf_engine="pdfplumber", ocr="off", whole_page=True)
    assert choices_of({}) == Choices()


@pytest.mark.parametrize(
    ("query", "says"),
    [
        ({"colour": "red"}, "unknown parameter 'colour'"),
        ({"ocr": "maybe"}, "ocr must be one of auto, off, force"),
        ({"pdf_engine": "acrobat"}, "pdf_engine must be one of pdfium, pdfplumber"),
        ({"whole_page": "perhaps"}, "whole_page must be true or false"),
    ],
)
def test_a_bad_parameter_is_refused_with_what_is_allowed(query: dict[str, str], says: str) -> None:
    with pytest.raises(BadRequest, match=says):
        choices_of(query)


def test_the_run_settings_are_indexer_extracts_for_the_same_flags(tmp_path: Path) -> None:
    toml = tmp_path / "c.toml"
    toml.write_text('[isolation]\ntimeout = 7\n[run]\nengine = "dask"\n')
    extractor = Extractor(toml, load_config(None, {"workers": 1, "pdf_workers": 1}), 5)
    choices = Choices(ocr="off", whole_page=True)
    settings = extractor.settings(choices)
    cli = one_file_config(toml, choices)
    assert (settings.timeout, settings.ocr_mode, settings.main_content) == (7, "off", False)
    assert (settings.workers, settings.pdf_workers, settings.skip_hidden) == (1, 1, False)
    # The server's pools are the local engine's, whatever the file names.
    assert settings.engine == "local" and cli.engine == "dask"
    assert extractor.settings(choices) is settings


def test_admission_takes_running_plus_waiting_then_refuses() -> None:
    admission = Admission(LIMITS)
    assert [admission.admit() for _ in range(4)] == [True, True, True, False]
    admission.leave()
    assert admission.admit()
    assert admission.stats() == {"running": 0, "waiting": 3, "capacity": 3}


def test_the_schema_names_the_apps_routes() -> None:
    extractor = Extractor(None, load_config(None, {"workers": 1, "pdf_workers": 1}), 5)
    app = create_app(extractor, LIMITS, token=None)
    routes = {route.path for route in app.routes}
    assert set(schema()["paths"]) == routes
    parameters = schema()["paths"]["/v1/extract"]["post"]["parameters"]
    assert [p["name"] for p in parameters] == ["name", "pdf_engine", "ocr", "whole_page"]
