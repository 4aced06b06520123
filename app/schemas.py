"""Pydantic schemas of the JSON API (the run record itself is documented in DESIGN.md)."""
from __future__ import annotations

import re
from typing import Any, Literal

from pydantic import BaseModel, Field, model_validator

_LONE_SURROGATE = re.compile("[\ud800-\udfff]")


def without_lone_surrogates(value):
    """JSON may escape a lone surrogate ("\\ud800"); Python then holds a str that cannot be
    written as UTF-8 (to the database, to Graphviz, to the answer). Each becomes U+FFFD, the
    replacement character, in every string of a request."""
    if isinstance(value, str):
        return value if value.isascii() else _LONE_SURROGATE.sub("\ufffd", value)
    if isinstance(value, dict):
        return {without_lone_surrogates(k): without_lone_surrogates(v) for k, v in value.items()}
    if isinstance(value, list):
        return [without_lone_surrogates(v) for v in value]
    return value


class ApiRequest(BaseModel):
    """A request body: its strings are made writable as UTF-8 before validation."""

    @model_validator(mode="before")
    @classmethod
    def _writable_strings(cls, data):
        return without_lone_surrogates(data)


class RunOptions(BaseModel):
    """What a run records; unknown keys are refused so a typo is a clear 422, not a silent default."""
    max_graphs: int = Field(3, ge=1, le=20, description="backward calls recorded in full (then only the last)")
    gradcheck: bool = Field(False, description="check each leaf's gradient against finite differences")

    model_config = {"extra": "forbid"}


STOP_KEY_PATTERN = r"^[A-Za-z0-9_-]{22,64}$"     # app.services.runs.STOP_KEY


class RunRequest(ApiRequest):
    code: str
    options: RunOptions = Field(default_factory=RunOptions)
    stop_key: str | None = Field(None, pattern=STOP_KEY_PATTERN,
                                 description="a secret the caller makes (>= 128 random bits) to stop this run with")


class StopRequest(ApiRequest):
    stop_key: str = Field(pattern=STOP_KEY_PATTERN, max_length=64)

    model_config = {"extra": "forbid"}


# A drawing request's graph: this many nodes and edges take about 0.7 s of CPU to read and
# validate (10,000 took 1.3 s), in a render slot's thread, off the event loop; what `dot` may draw
# is smaller by default (DAGSCOPE_RENDER_MAX_NODES/_EDGES, 413 beyond), and an operator may raise
# it to these. The server draws the graph it is sent: folding modules is the page's
# (static/js/collapse.js), where a class opens them one at a time. Ids and module paths become SVG ids, kept whole: bounded
# as a run record bounds them (docs/run-record.md).
MAX_GRAPH_NODES = 5_000
MAX_GRAPH_EDGES = 15_000
MAX_ID_CHARS = 1000


class GraphNode(BaseModel):
    id: str = Field(max_length=MAX_ID_CHARS)
    op: str = ""
    label: str = ""
    shape: list[int] | None = None
    dtype: str | None = None
    module: str | None = Field(None, max_length=MAX_ID_CHARS)
    kind: str | None = None
    line: int | None = None
    group: str | None = None

    model_config = {"extra": "allow"}


class GraphEdge(BaseModel):
    src: str = Field(max_length=MAX_ID_CHARS)
    dst: str = Field(max_length=MAX_ID_CHARS)
    shape: list[int] | None = None

    model_config = {"extra": "allow"}


class Graph(BaseModel):
    nodes: list[GraphNode] = Field(default_factory=list, max_length=MAX_GRAPH_NODES)
    edges: list[GraphEdge] = Field(default_factory=list, max_length=MAX_GRAPH_EDGES)

    model_config = {"extra": "allow"}


class RenderRequest(ApiRequest):
    graph: Graph
    format: Literal["svg", "png", "dot"] = "svg"
    direction: Literal["TB", "LR", "BT", "RL"] = "TB"
    lang: Literal["en", "zh-CN"] = Field("en", description="the language of the drawing's own words (a shape `[]` is 'scalar')")

    model_config = {"extra": "forbid"}     # a misspelt key is a clear 422, not a silent default


# Drawings asked for together (a view's wrapped rows, Forward's and Backward's at once): drawn by
# one `dot` process, whose start and confinement cost more than laying out a small graph. Their
# nodes and edges together are bounded as one graph's are.
MAX_BATCH_DRAWINGS = 16


class RenderPart(BaseModel):
    graph: Graph
    direction: Literal["TB", "LR", "BT", "RL"] = "TB"
    lang: Literal["en", "zh-CN"] = Field("en", description="the language of the drawing's own words (a shape `[]` is 'scalar')")

    model_config = {"extra": "forbid"}


class RenderBatchRequest(ApiRequest):
    drawings: list[RenderPart] = Field(min_length=1, max_length=MAX_BATCH_DRAWINGS)

    model_config = {"extra": "forbid"}
