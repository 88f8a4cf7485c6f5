"""The per-pod loops of a run of equivalent pods: its pods taken from the scheduling queue
(equivalence.place_run), and, bound together, the store's accounting (Store._account_bound), the
kubelets' admission and container starts (kubelet.start_bound_pods, ContainerStarts.run); and the
ReplicaSet controller's indexes of a batch of pods told together (WorkloadControllers._on_pods_event:
a batch of creates, binds or Running reports is thousands of pods of a few ReplicaSets).

Each function here is the plain Python of its loop, and the reference of `_binds.c`, which does the
same reads and writes without the interpreter's dispatch (a fifth of opening 150,000 pods): in the
same order, or, where what one pod's reads see depends on no other pod's writes, in the order of
the objects' addresses, which the processor's prefetcher follows. Where the C module is built, its
functions replace these (`COMPILED`; `PLAIN` keeps these); tests/test_binds.py compares the two."""

from __future__ import annotations

from collections import deque
from typing import Any, Callable


def account_bound(pods: list, by_node: dict, nodes: dict, default_cpu: int, default_memory: int) -> list:
    """Each pod listed under its node in `by_node`, and its requests added to its Node's totals
    (Store._account, +1); the Node of each pod that has one, in order (with repeats)."""
    changed = []
    for pod in pods:
        node_name = pod.node_name
        listed = by_node.get(node_name)
        if listed is None:
            listed = by_node[node_name] = {}
        listed[pod.key] = pod
        node = nodes.get(node_name)
        if node is not None:
            cpu, memory = pod.cpu, pod.memory
            node.requested_cpu += cpu
            node.requested_memory += memory
            node.nonzero_cpu += cpu or default_cpu
            node.nonzero_memory += memory or default_memory
            node.pod_count += 1
            changed.append(node)
    return changed


def totals_fit(node) -> bool:
    """Every pod the store counts on the node fits its allocatable: so does each of them
    (Kubelet.totals_fit)."""
    return (node.pod_count <= node.allocatable_pods and node.requested_cpu <= node.allocatable_cpu
            and node.requested_memory <= node.allocatable_memory)


STOP = object()  # (writer's answer for a node whose pods take pod_bound one after another)


def writer(kubelets: dict, nodes: dict, name: str) -> Any:
    """The node's kubelet if it can write (else None), or STOP where its pods take pod_bound one
    after another: a shutdown under way, or totals that do not fit."""
    kubelet = kubelets.get(name)
    if kubelet is None or not kubelet.signalling:
        return None
    if kubelet.shutdown is not None:
        return STOP
    node = nodes.get(name)  # (Kubelet.node, inlined: a pod a node)
    return STOP if node is not None and not totals_fit(node) else kubelet


def admit_all(pods: list, kubelets: dict, nodes: dict) -> list | None:
    """The (kubelet, pod) pairs of the pods whose kubelet admits them with nothing written but their
    start, in order, skipping a pod on no writing kubelet and one whose containers it already holds;
    None where some pod needs its own pod_bound (a pod with volumes, or a node `writer` answers
    STOP for). `writer` is asked once per node name: nothing the pods' admission does changes its
    answer, nor what another pod's admission reads (the compiled loop asks the nodes in the order
    of their kubelets' addresses: where the answer is None, it may have asked nodes this one did
    not reach)."""
    writers: dict[str, Any] = {}
    admitted = []
    for pod in pods:
        name = pod.node_name or ""
        kubelet = writers.get(name, writers)  # (writers itself: not asked yet)
        if kubelet is writers:
            kubelet = writers[name] = writer(kubelets, nodes, name)
            if kubelet is STOP:
                return None
        if kubelet is None or pod.key in kubelet.containers:
            continue
        if pod.volume_claims:
            return None
        admitted.append((kubelet, pod))
    return admitted


def add_containers(admitted: list, containers: list, now: int, add: Callable, open_batch: Callable) -> None:
    """Each admitted pod's container held by its kubelet and its start due at now + start_duration:
    `add(node name, container, due)` (ContainerStarts.add), or, where the start is due when the
    pod's before it was, appended to the batch that add opened or joined (`open_batch()`) with that
    container's timer, as add would. `add` and `open_batch` read nothing of the kubelets: the
    compiled loop holds the containers first, in the order of the kubelets' addresses."""
    last_due = batch = timer = None
    for (kubelet, pod), container in zip(admitted, containers, strict=True):
        kubelet.containers[pod.key] = container
        due = now + pod.start_duration
        if last_due is not None and due == last_due:
            batch.append((kubelet.node_name, pod.key))
            container.timer = timer
        else:
            add(kubelet.node_name, container, due)
            last_due, batch, timer = due, open_batch(), container.timer


def start_batch(batch: list, machine_of: Callable[[str], tuple], pods: dict, number: int) -> list:
    """The containers of batch `number` start (Kubelet.container_running for each still in it:
    timer -number); the pods whose Running report their kubelet writes, in order.
    `machine_of(node name)` is asked once per node name: (its kubelet's containers, can it write)."""
    machines: dict[str, tuple] = {}
    running = []
    mark = -number
    for node_name, pod_key in batch:
        machine = machines.get(node_name)
        if machine is None:
            machine = machines[node_name] = machine_of(node_name)
        container = machine[0].get(pod_key)
        if container is not None and container.timer == mark:
            container.timer = None
            container.started = True
            pod = pods.get(pod_key)
            if pod is not None and pod.uid == container.uid and machine[1]:
                running.append(pod)
    return running


def take_run(run: deque, infos: dict, pods: dict, limit: int, labels: dict, fields: tuple[str, ...],
             values: tuple, active: str, in_flight: str) -> tuple[list, Any]:
    """SchedulingQueue.pops() over one (priority, queued at) pair's entries `run`, taking pods of a
    run of equivalent pods (equivalence.place_run): up to `limit` entries that are live (their
    QueuedPodInfo's token, `where` `active`) are popped as pops() pops them (`where` `in_flight`,
    one attempt more), stale ones dropped. A popped pod that holds `labels` (the same dict) and the
    `fields` equal to `values` is taken, with its info; the first that does not (or has no Pod)
    ends the taking and is answered as pending (popped, not taken: the caller asks
    `equivalent`). (taken pairs (pod, info), the pending info or None)."""
    taken: list = []
    while run and len(taken) < limit:
        token, key = run.popleft()
        info = infos.get(key)
        if info is None or info.token != token or info.where != active:
            continue
        info.where = in_flight
        info.attempts += 1
        pod = pods.get(info.key)
        if pod is None or pod.labels is not labels or tuple(getattr(pod, name) for name in fields) != values:
            return taken, info
        taken.append((pod, info))
    return taken, None


def index_replicaset_pods(what: str, pods: list, replicasets: dict, actives: dict, readies: dict,
                          on_pod: Callable, mark: Callable, constants: tuple) -> None:
    """WorkloadControllers._on_pods_event's loop: for each of `pods` in turn, a ReplicaSet's pod
    indexed as `_on_pod_event` indexes it (`actives` / `readies`: ReplicaSet name -> its active
    pods by key / its ready ones by uid) and its ReplicaSet (in `replicasets`) marked once a stretch
    of its pods (`mark(rs)`: the later marks of the stretch change nothing); a pod of another
    owner's kind given to `on_pod(what, pod)`. A ReplicaSet's indexes are looked up once a stretch
    of its pods, and the Ready condition once a conditions dict (pods of a run hold one, which no
    one writes in place: objects.ConditionCache). `constants`: (Succeeded, Failed, True)."""
    succeeded, failed, true = constants
    last = None
    held, ready_held = None, False
    for pod in pods:
        owner = pod.owner
        if owner is None:
            continue
        if owner.kind != "ReplicaSet":
            on_pod(what, pod)
            continue
        name = owner.name
        if name != last:
            last, rs, marked = name, replicasets.get(name), False
            active, ready = actives.get(name), readies.get(name)
        phase = pod.phase
        is_active = what != "removed" and pod.deletion_timestamp is None and phase != succeeded \
            and phase != failed
        if pod.conditions is not held:
            held = pod.conditions
            cond = held.get("Ready")
            ready_held = cond is not None and cond.status == true
        is_ready = is_active and ready_held
        if what == "condition" and (ready is not None and pod.uid in ready) == is_ready:
            continue
        if active is None:
            active = actives[name] = {}
            ready = readies[name] = {}
        if is_active:
            active[pod.key] = pod
            if is_ready:
                ready[pod.uid] = pod
            else:
                ready.pop(pod.uid, None)
        else:
            active.pop(pod.key, None)
            ready.pop(pod.uid, None)
        if rs is not None and not marked:
            marked = True
            mark(rs)


PLAIN = {"account_bound": account_bound, "admit_all": admit_all, "add_containers": add_containers,
         "start_batch": start_batch, "take_run": take_run, "index_replicaset_pods": index_replicaset_pods}

try:
    from . import _binds
except ImportError:  # not built: the loops above
    _binds = None
COMPILED = _binds is not None
if _binds is not None:
    account_bound = _binds.account_bound
    admit_all = _binds.admit_all
    add_containers = _binds.add_containers
    start_batch = _binds.start_batch
    take_run = _binds.take_run
    index_replicaset_pods = _binds.index_replicaset_pods
