"""ConditionCache.set_each (the binds and Initialized conditions of a run written together) against
`set` pod after pod: the same conditions on every pod, the same pods reported changed, and the same
dicts shared, with pods holding the same dict or not, in runs or interleaved, and a cache small
enough to be cleared in the middle of a batch."""

from __future__ import annotations

from hypothesis import given, settings, strategies as st

from playground.engine.objects import FALSE, NO_CONDITIONS, TRUE, ConditionCache


class Holder:
    __slots__ = ("conditions",)

    def __init__(self, conditions: dict) -> None:
        self.conditions = conditions


def content(conditions: dict) -> list[tuple]:
    return [(c.type, c.status, c.reason, c.message, c.last_heartbeat_time, c.last_transition_time)
            for c in conditions.values()]


def starting_dicts(cache: ConditionCache) -> list[dict]:
    """A few condition dicts as pods come to hold them: none yet, one condition, two, another status."""
    made = []
    for writes in ((), (("PodScheduled", TRUE),), (("PodScheduled", TRUE), ("Initialized", TRUE)),
                   (("PodScheduled", FALSE),), (("Ready", TRUE),)):
        holder = Holder(NO_CONDITIONS)
        for i, (ctype, status) in enumerate(writes):
            cache.set(holder, ctype, status, "", "", 1000 * (i + 1))
        made.append(holder.conditions)
    return made


@settings(max_examples=200, deadline=None)
@given(starts=st.lists(st.integers(0, 4), min_size=1, max_size=30),
       ctype=st.sampled_from(["PodScheduled", "Initialized", "Ready"]), status=st.sampled_from([TRUE, FALSE]),
       limit=st.sampled_from([2, 3, 5, 4096]), now=st.sampled_from([1000, 5000]))
def test_set_each_equals_set_pod_after_pod(starts, ctype, status, limit, now):
    outcomes = []
    for together in (True, False):
        cache = ConditionCache(limit)
        dicts = starting_dicts(cache)
        pods = [Holder(dicts[i]) for i in starts]
        if together:
            changed = cache.set_each(pods, ctype, status, now)
        else:
            changed = [pod for pod in pods if cache.set(pod, ctype, status, "", "", now)]
        shared = [[j for j, other in enumerate(pods) if other.conditions is pod.conditions] for pod in pods]
        outcomes.append(([content(pod.conditions) for pod in pods], [pods.index(p) for p in changed], shared))
    assert outcomes[0] == outcomes[1]
