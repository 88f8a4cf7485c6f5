"""manifests.yamlload.load_all builds documents from libyaml's events; PyYAML's SafeLoader, which
composes a node graph first, is the plain reference: the same documents, or the same error, for
kubectl's YAML, for what the event builder leaves to the SafeLoader, and for random documents."""

from __future__ import annotations

import datetime
import os

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from playground.manifests import yamlload
from playground.manifests.yamlload import load_all

SafeLoader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
# load_all's two builders: the compiled one (setup.py, with libyaml's headers) and the Python one
# that the package falls back to without it (where it was not built, only test_the_compiled_builder_is_built
# says so: the others test the Python one)
BUILDERS = {"compiled": yamlload._build, "python": None} if yamlload._build is not None else {"python": None}
READERS = [yamlload._compiled, yamlload._from_events] if yamlload._build is not None else [yamlload._from_events]


def reference(text: str):
    try:
        return list(yaml.load_all(text, Loader=SafeLoader))
    except Exception as exc:  # noqa: BLE001 - the error is part of the outcome
        return (type(exc), str(exc))


def loaded(text: str, builder=yamlload._build):
    saved, yamlload._build = yamlload._build, builder
    try:
        return load_all(text)
    except Exception as exc:  # noqa: BLE001
        return (type(exc), str(exc))
    finally:
        yamlload._build = saved


def differing_builders(text: str) -> list[str]:
    """The builders that do not read `text` as the SafeLoader does (or end with its error)."""
    expected = reference(text)
    return [name for name, builder in BUILDERS.items() if loaded(text, builder) != expected]


@pytest.mark.parametrize("depth", [yamlload.MAX_DEPTH, yamlload.MAX_DEPTH + 1, 1001])
def test_deep_documents_end_as_the_safe_loader_ends(depth):
    """Up to MAX_DEPTH levels each builder reads a document itself; deeper ones go to the SafeLoader,
    whose libyaml (0.2.6) refuses more than 1,000: the outcome is its own, whatever the machine's
    libyaml would have said."""
    flow = "[" * depth + "]" * depth
    block = "".join(f"{'  ' * i}k{i}:\n" for i in range(depth)) + "  " * depth + "x\n"
    for text in (flow, block):
        expected = reference(text)
        assert isinstance(expected, tuple) == (depth > 1000)  # (the error: exceeded maximum nesting depth)
        assert differing_builders(text) == []
        if depth <= yamlload.MAX_DEPTH:
            assert all(read(text) == expected for read in READERS)  # each read it itself
        else:
            for read in READERS:
                with pytest.raises(Exception):
                    read(text)  # left to the SafeLoader


def test_the_compiled_builder_is_built() -> None:
    """`pip install -e .` builds it (setup.py) where libyaml's headers are (Debian: libyaml-dev)."""
    assert yamlload._build is not None


KUBECTL = """\
apiVersion: v1
items:
- apiVersion: v1
  kind: Pod
  metadata:
    creationTimestamp: "2025-03-01T10:00:00Z"
    labels:
      app: web
      pod-template-hash: 7c5ddbdf54
    name: web-7c5ddbdf54-x2x9q
    namespace: shop
  spec:
    containers:
    - image: registry.k8s.io/pause:3.9
      name: app
      ports:
      - containerPort: 8080
        protocol: TCP
      resources:
        requests:
          cpu: 250m
          memory: 512Mi
    nodeName: ip-10-0-1-11.ec2.internal
    priority: 0
    terminationGracePeriodSeconds: 30
    tolerations:
    - effect: NoExecute
      key: node.kubernetes.io/not-ready
      operator: Exists
      tolerationSeconds: 300
  status:
    conditions:
    - lastProbeTime: null
      status: "True"
      type: Ready
    phase: Running
kind: List
metadata:
  resourceVersion: ""
"""


@pytest.mark.parametrize("text", [
    KUBECTL,
    KUBECTL + "---\n" + KUBECTL,  # two documents
    "---\n---\na: 1\n...\n---\n",  # empty documents
    "",
    "just a string\n",
    "- 1\n- 0o17\n- 017\n- 0x1F\n- 0b101\n- 1_000\n- 1:30\n- -7\n- +3\n",  # YAML 1.1 ints
    "- 1.5\n- .inf\n- -.Inf\n- .nan\n- 1e3\n- 6.8523015e+5\n- 1:30.5\n- 1.\n",  # floats
    "- yes\n- No\n- on\n- OFF\n- true\n- False\n- y\n- n\n",  # bools (y and n are strings)
    "- ~\n- null\n- Null\n-\n- ''\n- \"\"\n",  # nulls and empty strings
    "- 2025-03-01\n- 2025-03-01T10:00:00Z\n- 2025-03-01 10:00:00.5 +02:00\n",  # timestamps
    "- '1'\n- \"yes\"\n- 'null'\n- \"2025-03-01\"\n",  # quoted: strings
    "a: |\n  line one\n  line two\nb: >\n  folded\n  text\nc: plain\n  continued\n",  # block scalars
    "a: 1\na: 2\nb: 3\n",  # a duplicate key: the last value, the first place
    "a: {b: [1, two, {c: d}], e: []}\nf: {}\n",  # flow style
    "name: café → ☃\n\"quoted key\": 1\n? explicit key\n: value\n",  # unicode, quoted and explicit keys
    "# a comment\na: 1 # another\n",
    "\ufeff\ufeffa: 1\n",  # byte order marks: the first marks the encoding, the second is skipped
], ids=["kubectl", "two-documents", "empty-documents", "nothing", "scalar-document", "ints", "floats",
        "bools", "nulls", "timestamps", "quoted", "block-scalars", "duplicate-key", "flow", "unicode-keys",
        "comments", "byte-order-marks"])
def test_what_kubectl_and_people_write_is_read_as_the_safe_loader_reads_it(text):
    assert differing_builders(text) == []
    # each builder reads it itself, without leaving it to the SafeLoader
    assert all(read(text) == reference(text) for read in READERS)


@pytest.mark.parametrize("text", [
    "base: &b {x: 1}\nother: *b\n",  # anchor and alias
    "base: &b {x: 1, y: 2}\nother:\n  <<: *b\n  y: 3\n",  # a merge key
    "a:\n  <<: {x: 1}\n  y: 2\n",  # a merge key without an alias
    "a: !!str 123\nb: !!int '7'\nc: !!float 1\n",  # tags
    "a: !!binary aGVsbG8=\n",
    "a: !!set {x, y}\n",  # a tagged mapping
    "a: !!pairs [{x: 1}, {x: 2}]\n",  # a tagged sequence
    "a: !custom x\n",  # an unknown tag: the SafeLoader's error
    "? [a, b]\n: c\n",  # a complex key: the SafeLoader's error
    "? {a: 1}\n: c\n",
    "= : x\n",  # the value key
    "a: b: c\n",  # syntax errors: the SafeLoader's error, word for word
    "a: [1, 2\n",
    "- a\nb: c\n",
    "a: 2025-13-45\n",  # a timestamp-shaped value that is no date
    "a: *nowhere\n",
], ids=["alias", "merge", "inline-merge", "tags", "binary", "set", "pairs", "unknown-tag", "list-key", "map-key", "value-key",
        "mapping-in-plain", "unclosed-flow", "mixed-block", "bad-date", "undefined-alias"])
def test_what_the_builder_leaves_to_the_safe_loader_ends_as_the_safe_loader_ends(text):
    assert differing_builders(text) == []


words = st.sampled_from(["yes", "no", "on", "off", "y", "n", "true", "False", "null", "~", "", "0", "007",
                         "0x1f", "1_000", "1:30", "1e3", ".inf", ".NaN", "2025-03-01", "2025-03-01T10:00:00Z",
                         "<<", "=", "-", "?", ":", "#", "a: b", "- x", "'", '"', "|", ">", "&a", "*a", "!x",
                         "%TAG", "---", "...", " lead", "trail ", "tab\there", "line\nbreak", "é", "☃"])
scalars = (st.none() | st.booleans() | st.integers(-(10**20), 10**20)
           | st.floats(allow_nan=False) | words | st.text(max_size=12)
           | st.datetimes(min_value=datetime.datetime(1970, 1, 1), max_value=datetime.datetime(2100, 1, 1))
           | st.dates())
keys = st.none() | st.booleans() | st.integers(-1000, 1000) | words | st.text(max_size=8)
documents = st.recursive(scalars, lambda children: st.lists(children, max_size=4)
                         | st.dictionaries(keys, children, max_size=4), max_leaves=25)


class NoAliases(yaml.SafeDumper):
    def ignore_aliases(self, data):
        return True


# CI profile: 300 examples; a longer run: YAML_LOAD_EXAMPLES=20000 pytest tests/test_yamlload.py
EXAMPLES = int(os.environ.get("YAML_LOAD_EXAMPLES", "300"))


@settings(max_examples=EXAMPLES, deadline=None)
@given(st.lists(documents, min_size=1, max_size=3), st.sampled_from([None, False, True]), st.booleans(),
       st.booleans(), st.sampled_from([None, "'", '"', "|"]))
def test_random_documents_are_read_as_the_safe_loader_reads_them(docs, flow, unicode, explicit, style):
    text = yaml.dump_all(docs, Dumper=NoAliases, default_flow_style=flow, allow_unicode=unicode,
                         explicit_start=explicit, default_style=style)
    assert differing_builders(text) == []
