"""PodCounts.hold: a run's binds counted together (equivalence.py) against each counted at once. Any
read, any other change (another class's bind, a pod going away or being deleted) counts the held
binds first, so every read and the final columns, largest live counts and per-node counts are the
same as without holding."""

from __future__ import annotations

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import make_sim, nodes_toml

from playground.engine.objects import LabelSelector
from playground.engine.scheduler.podcounts import PodMatcher
from playground.engine.workloads import pod_from_template

CLUSTER = nodes_toml("a-", 3, zone="zone-a", cpu="64", memory="256Gi") \
    + nodes_toml("b-", 2, zone="zone-b", cpu="64", memory="256Gi") + """
[[deployments]]
name = "web"
replicas = 4
template = { labels = { app = "web" }, requests = { cpu = "100m" } }

[[deployments]]
name = "db"
replicas = 3
template = { labels = { app = "db" }, requests = { cpu = "100m" } }
"""
ZONE = "topology.kubernetes.io/zone"
MATCHERS = {app: PodMatcher(frozenset({"default"}), (LabelSelector((("app", app),)),)) for app in ("web", "db")}

operations = st.lists(st.one_of(
    st.tuples(st.just("bind"), st.sampled_from(["web", "db"]), st.integers(0, 4)),
    st.tuples(st.just("delete"), st.integers(0, 30)),
    st.tuples(st.sampled_from(["read", "domains", "pairs", "hold"]), st.sampled_from(["web", "db"]))),
    max_size=25)


def run(ops, holding: bool) -> list:
    sim = make_sim(CLUSTER)
    sim.run_until(5)
    store, scheduler = sim.store, sim.scheduler
    counts = scheduler.topology.counts
    scheduler.columns.sync(scheduler.node_order(), None)
    nodes = [node.name for node in scheduler.node_order()]
    templates = {rs.template.labels["app"]: rs for rs in sim.workloads.replicasets.values()}
    for matcher in MATCHERS.values():  # watched, with their per-domain sums and pair keys
        watched = counts.counts(matcher)
        counts.domain_live(watched, ZONE)
        counts.pair_keys(watched, ZONE)
    if holding:
        counts.hold()
    seen: list = []
    for n, op in enumerate(ops):
        kind = op[0]
        if kind == "bind":
            rs = templates[op[1]]
            pod = pod_from_template(sim, f"{op[1]}-x{n}", "default", rs.template, None)
            store.add_pod(pod)
            store.bind_pod(pod, nodes[op[2]])
        elif kind == "delete":
            bound = [p for p in store.pods.values() if p.node_name and p.deletion_timestamp is None]
            if bound:
                pod = bound[op[1] % len(bound)]
                if op[1] % 2:
                    store.mark_pod_deleting(pod, 30)
                else:
                    store.remove_pod(pod)
        elif kind == "hold":
            if holding:
                counts.hold()
        else:
            watched = counts.counts(MATCHERS[op[1]])
            if kind == "read":
                seen.append((watched.all.tolist(), watched.live.tolist(), watched.live_max))
            elif kind == "domains":
                seen.append(counts.domain_live(watched, ZONE).tolist())
            else:
                seen.append(counts.pair_keys(watched, ZONE).tolist())
    counts.release()
    for matcher in MATCHERS.values():
        watched = counts.counts(matcher)
        seen.append((watched.all.tolist(), watched.live.tolist(), watched.live_max,
                     {key: np.asarray(v).tolist() for key, v in watched.domain_live.items()},
                     {key: np.asarray(v).tolist() for key, v in watched.pair_keys.items()}))
    seen.append(sorted((cls.namespace, sorted(cls.labels.items()), sorted(cls.by_node.items()),
                        sorted(cls.deleting.items())) for cls in counts.classes.values()))
    return seen


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(operations)
def test_held_binds_read_and_end_as_binds_counted_at_once(ops):
    assert run(ops, holding=True) == run(ops, holding=False)


def test_held_binds_wait_until_read():
    sim = make_sim(CLUSTER)
    sim.run_until(5)
    counts = sim.scheduler.topology.counts
    sim.scheduler.columns.sync(sim.scheduler.node_order(), None)
    watched = counts.counts(MATCHERS["web"])
    before = watched.all.sum()
    rs = next(rs for rs in sim.workloads.replicasets.values() if rs.template.labels["app"] == "web")
    counts.hold()
    for i in range(3):
        pod = pod_from_template(sim, f"web-held-{i}", "default", rs.template, None)
        sim.store.add_pod(pod)
        sim.store.bind_pod(pod, "a-1")
    assert watched.all.sum() == before  # held, not counted yet
    assert counts.counts(MATCHERS["web"]).all.sum() == before + 3  # a read counts them first
