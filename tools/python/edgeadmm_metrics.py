"""The gateway's metrics file ([metrics] file in aggregatord.toml), read as
the node exporter's textfile collector reads it.

The daemon writes the whole file at once (a temporary file renamed over
it: docs/aggregator.md, "Metrics"), so a reader never sees a partial text.
`parse` is strict: a line that is not a HELP, a TYPE or a sample of a
declared metric with well-formed labels is a FormatError.
`read` returns {} before the first write. Samples are keyed by (name,
frozenset of label pairs); `value` looks one up.
"""

from __future__ import annotations

import re
from typing import Dict, FrozenSet, Optional, Tuple

Key = Tuple[str, FrozenSet[Tuple[str, str]]]

NAME = r"[a-zA-Z_:][a-zA-Z0-9_:]*"
LABEL = r'[a-zA-Z_][a-zA-Z0-9_]*="(?:[^"\\\n]|\\[\\"n])*"'
SAMPLE_RE = re.compile(rf"({NAME})(\{{{LABEL}(?:,{LABEL})*\}})? (\S+)")
HELP_RE = re.compile(rf"# HELP ({NAME}) .+")
TYPE_RE = re.compile(rf"# TYPE ({NAME}) (counter|gauge|histogram|summary|"
                     r"untyped)")
LABEL_RE = re.compile(r'([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"')


class FormatError(ValueError):
    """A metrics text that is not a Prometheus text exposition."""


def parse(text: str) -> Dict[Key, float]:
    """{(name, frozenset(labels.items())): value} of a Prometheus text
    exposition; FormatError on the first line that is not one."""
    if not text.endswith("\n"):
        raise FormatError("no newline at the end")
    types: Dict[str, str] = {}
    samples: Dict[Key, float] = {}
    for number, line in enumerate(text.splitlines(), 1):
        if line.startswith("# HELP "):
            if not HELP_RE.fullmatch(line):
                raise FormatError(f"line {number}: bad HELP: {line!r}")
            continue
        if line.startswith("# TYPE "):
            m = TYPE_RE.fullmatch(line)
            if not m:
                raise FormatError(f"line {number}: bad TYPE: {line!r}")
            types[m.group(1)] = m.group(2)
            continue
        m = SAMPLE_RE.fullmatch(line)
        if not m:
            raise FormatError(f"line {number}: not a sample: {line!r}")
        name = m.group(1)
        family = re.sub(r"_(bucket|sum|count)$", "", name)
        if name not in types and not (family in types and
                                      types[family] == "histogram"):
            raise FormatError(f"line {number}: {name} has no TYPE before it")
        labels = frozenset(LABEL_RE.findall(m.group(2) or ""))
        try:
            value = float(m.group(3))
        except ValueError:
            raise FormatError(f"line {number}: bad value {m.group(3)!r}")
        if (name, labels) in samples:
            raise FormatError(f"line {number}: {name} repeated")
        samples[(name, labels)] = value
    return samples


def read(path: str) -> Dict[Key, float]:
    """The samples of the metrics file at `path`; {} before its first
    write (no file yet)."""
    try:
        with open(path) as f:
            text = f.read()
    except FileNotFoundError:
        return {}
    return parse(text)


def value(samples: Dict[Key, float], name: str,
          default: Optional[float] = None, **labels: str) -> Optional[float]:
    """The sample `name` with exactly `labels`, or `default`."""
    return samples.get((name, frozenset(labels.items())), default)


def by_label(samples: Dict[Key, float], name: str,
             label: str) -> Dict[str, float]:
    """{the value of `label`: the sum of the samples of `name` that carry
    it} (e.g. the verdicts of a counter labelled verdict="..."; a series
    with more labels, e.g. resource and code, is summed over the others)."""
    out: Dict[str, float] = {}
    for (series, labels), v in samples.items():
        if series != name:
            continue
        for key, text in labels:
            if key == label:
                out[text] = out.get(text, 0.0) + v
    return out
