"""The Arrow schemas of an export: the shipped JSON Schemas of the records
(`indexer/schemas/`), type for type, so a parquet file holds every key of every record
with the type the NDJSON has, whatever its first rows hold (no loader infers anything).

A JSON `string` (or `enum`) is `string`, `integer` `int64`, `number` `double`, `boolean`
`bool`, `array` a `list` of its items' type, `object` a `struct` of its properties in
their order (the records' order). `docs/hygiene.md` lists the result.
"""

from __future__ import annotations

import functools
from typing import Any

import pyarrow as pa

from indexer import schemas

NAMES = ("documents", "chunks")
"""The record kinds an export writes, each to `<name>-NNNNN.parquet`."""

_SCALARS = {"string": pa.string(), "integer": pa.int64(), "number": pa.float64(),
            "boolean": pa.bool_()}  # fmt: skip


@functools.cache
def arrow(name: str) -> pa.Schema:
    """The Arrow schema of `name`'s records (`documents` or `chunks`); raises ValueError
    for another name, or a JSON Schema construct this mapping does not know."""
    if name not in NAMES:
        raise ValueError(f"no export of {name!r}: there are {', '.join(NAMES)}")
    schema = schemas.load(name)
    struct = _type(schema, schema.get("$defs", {}))
    return pa.schema(list(struct))


def _type(node: dict[str, Any], defs: dict[str, Any]) -> pa.DataType:
    if "$ref" in node:
        return _type(defs[node["$ref"].rsplit("/", 1)[-1]], defs)
    if "enum" in node and all(isinstance(v, str) for v in node["enum"]):
        return pa.string()
    kind = node.get("type")
    if kind in _SCALARS:
        return _SCALARS[kind]
    if kind == "array":
        return pa.list_(_type(node["items"], defs))
    if kind == "object":
        fields = [
            pa.field(k, _type(v, defs), nullable=False) for k, v in node["properties"].items()
        ]
        return pa.struct(fields)
    raise ValueError(f"no Arrow type for the JSON Schema node {node!r}")


def text(name: str) -> str:
    """`name`'s Arrow schema as pyarrow prints it (what docs/hygiene.md shows)."""
    return str(arrow(name))
