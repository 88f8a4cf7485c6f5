"""`yaml.load_all(text, Loader=SafeLoader)` for what kubectl prints, built from libyaml's parse events.

PyYAML's loader first composes a node graph of the whole document (a node object and two marks for
every scalar), then constructs Python objects from it: a 38 MiB `-o yaml` dump of 15,000 pods took
14.7 s and 1.6 GiB. kubectl's YAML has no anchors, aliases, tags or merge keys, so its objects can be
built straight from the parser's events: mappings, sequences, and scalars resolved and constructed
by the SafeLoader's own resolver and constructors (cached by value: a dump repeats its keys and
values by the million). Anything else (an anchor, an alias, a tag, a merge key, a key that is not a
scalar, an error) is left to PyYAML's loader, which reads the text again and gives its own result or
its own error: the outcome is the SafeLoader's in every case (tests/test_yamlload.py compares them).

PyYAML still makes one event object and two marks per event: reading them took about 2.9 s of the
3.1 s for those 15,000 pods. So the events are read by a compiled loop (`_yamlbuild.c`, built by
setup.py against libyaml when the machine has its headers) that builds the same objects itself and
asks `_plain` only for plain scalars it has not seen; without it, `_from_events` does it in Python.
"""

from __future__ import annotations

import yaml
from yaml.events import (
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
)
from yaml.nodes import ScalarNode

try:  # libyaml's parser
    from yaml import CSafeLoader as SafeLoader
except ImportError:  # pragma: no cover - PyYAML built without libyaml
    from yaml import SafeLoader

try:  # the compiled builder (setup.py)
    from ._yamlbuild import build as _build
except ImportError:  # pragma: no cover - built without a C compiler or libyaml's headers
    _build = None

STR = "tag:yaml.org,2002:str"
CACHE_LIMIT = 100_000  # distinct plain scalars remembered (their tag and value)
PLAIN = (True, False)  # a plain scalar's (plain implicit, quoted implicit): resolved from its text
# Deeper documents go to PyYAML's loader, whose libyaml may refuse them (0.2.6 stops at 1,000 levels;
# the system's, which _yamlbuild.c is built against, may have no limit): kubectl nests a few dozen.
MAX_DEPTH = 500


class _Unusual(Exception):
    """Something the event builder leaves to PyYAML's loader."""


def load_all(text: str) -> list:
    """The documents of `text`, as `list(yaml.load_all(text, Loader=SafeLoader))` gives them."""
    try:
        if _build is not None:
            return _compiled(text)
        return _from_events(text)
    except Exception:  # (an error included: PyYAML's loader raises its own)
        return list(yaml.load_all(text, Loader=SafeLoader))


def _compiled(text: str) -> list:
    loader = SafeLoader("")
    try:
        scalars: dict[str, object] = {}
        return _build(text, lambda value: _plain(loader, value, scalars), scalars, MAX_DEPTH)
    finally:
        loader.dispose()


def _from_events(text: str) -> list:
    loader = SafeLoader(text)
    try:
        get = loader.get_event
        get()  # StreamStartEvent
        documents = []
        scalars: dict[str, object] = {}
        while type(get()) is not StreamEndEvent:  # DocumentStartEvent
            documents.append(_document(loader, get, scalars))
            get()  # DocumentEndEvent
        return documents
    finally:
        loader.dispose()


def _document(loader, get, scalars: dict) -> object:
    # stack entries: [container, is a mapping, the key waiting for its value (a 1-tuple) or None]
    stack: list[list] = []
    while True:
        event = get()
        kind = type(event)
        if kind is ScalarEvent:
            if event.anchor is not None or event.tag is not None:
                raise _Unusual
            if event.implicit[0]:  # plain: resolved as YAML 1.1 says (int, bool, null, timestamp, ...)
                value = scalars.get(event.value, scalars)
                if value is scalars:
                    value = _plain(loader, event.value, scalars)
            else:  # quoted, literal or folded: a string
                value = event.value
        elif kind is MappingStartEvent or kind is SequenceStartEvent:
            if event.anchor is not None or event.tag is not None:
                raise _Unusual
            if len(stack) == MAX_DEPTH:
                raise _Unusual
            mapping = kind is MappingStartEvent
            stack.append([{} if mapping else [], mapping, None])
            continue
        elif kind is MappingEndEvent or kind is SequenceEndEvent:
            value = stack.pop()[0]
        else:  # an alias (or an event a document cannot hold here)
            raise _Unusual
        if not stack:
            return value
        top = stack[-1]
        if not top[1]:
            top[0].append(value)
        elif top[2] is None:
            top[2] = (value,)  # (a list or a mapping as a key fails below: PyYAML says it in its words)
        else:
            top[0][top[2][0]] = value
            top[2] = None


def _plain(loader, text: str, scalars: dict) -> object:
    """A plain scalar without a tag (implicit PLAIN), resolved and constructed, and remembered."""
    tag = loader.resolve(ScalarNode, text, PLAIN)
    if tag == STR:
        value = text
    else:
        # (a merge key or the value key has no constructor: the KeyError leaves it to PyYAML)
        value = loader.yaml_constructors[tag](loader, ScalarNode(tag, text))
    if len(scalars) >= CACHE_LIMIT:
        scalars.clear()
    scalars[text] = value
    return value
