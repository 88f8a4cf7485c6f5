"""A pod's effective requests, as kube-scheduler sees them (k8s.io/component-helpers/resource,
PodRequests): the sum over its containers; each init container runs alone (plus the sidecars
started before it), so the pod needs at least the largest of those; sidecars (init containers with
restartPolicy Always) keep running and add to the steady state; the pod overhead comes on top.
Quantities are read as resource.Quantity reads them (m, k/M/G/T/P/E, Ki..Ei, e-notation, plain).
"""

from __future__ import annotations

from ..units import UnitError, parse_cpu, parse_memory


def _container_requests(container: dict, where: str) -> tuple[int, int]:
    resources = container.get("resources") or {}
    requests = resources.get("requests") or {}
    limits = resources.get("limits") or {}
    # The API server defaults a missing request to the limit (core/v1 SetDefaults_Pod).
    cpu = requests.get("cpu", limits.get("cpu"))
    memory = requests.get("memory", limits.get("memory"))
    try:
        return (parse_cpu(cpu) if cpu is not None else 0,
                parse_memory(memory) if memory is not None else 0)
    except UnitError as exc:
        raise UnitError(f"{where}: {exc}") from None


def pod_requests(spec: dict, where: str = "pod") -> tuple[int, int]:
    """(millicores, bytes) the scheduler counts for a pod spec."""
    cpu = memory = 0
    for i, container in enumerate(spec.get("containers") or []):
        c, m = _container_requests(container, f"{where} spec.containers[{i}].resources")
        cpu += c
        memory += m
    init_cpu = init_memory = 0
    sidecar_cpu = sidecar_memory = 0
    for i, container in enumerate(spec.get("initContainers") or []):
        c, m = _container_requests(container, f"{where} spec.initContainers[{i}].resources")
        if container.get("restartPolicy") == "Always":
            cpu += c
            memory += m
            sidecar_cpu += c
            sidecar_memory += m
            c, m = sidecar_cpu, sidecar_memory
        else:
            c, m = c + sidecar_cpu, m + sidecar_memory
        init_cpu = max(init_cpu, c)
        init_memory = max(init_memory, m)
    cpu = max(cpu, init_cpu)
    memory = max(memory, init_memory)
    overhead = spec.get("overhead") or {}
    try:
        cpu += parse_cpu(overhead["cpu"]) if "cpu" in overhead else 0
        memory += parse_memory(overhead["memory"]) if "memory" in overhead else 0
    except UnitError as exc:
        raise UnitError(f"{where} spec.overhead: {exc}") from None
    return cpu, memory
