"""`playground import` of a large kubectl dump: 5,000 nodes and 150,000 pods, as
`kubectl get nodes,pods,deployments,daemonsets -A -o json` prints them (a List; each pod with the
fields a real one has: owner, labels, containers with image, ports, probes and mounts, the default
tolerations, a projected token volume, status with conditions and container statuses).

Prints CPU seconds (time.process_time; min and median of the runs) for reading the JSON, making the
scenario (convert), validating it, and writing its TOML text; asserts nothing. Target: the whole
import under 10 s.

    python benchmarks/import_dump.py [--nodes 5000] [--pods 150000] [--runs 3] [--yaml] [--profile]
"""

from __future__ import annotations

import argparse
import gc
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from playground.manifests import Imported, scenario_from_data, scenario_text  # noqa: E402
from playground.manifests.importer import SOURCE, import_dump, scenario_name  # noqa: E402
from playground.gcpause import no_gc  # noqa: E402
from profiling import print_profile  # noqa: E402
from playground.manifests.reader import read_files  # noqa: E402

ZONES = 10
DEPLOYMENTS = 30
DAEMONSETS = 2
SIZES = (("100m", "128Mi"), ("250m", "512Mi"), ("500m", "1Gi"))
DEFAULT_TOLERATIONS = [
    {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
    {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
]


def node(i: int) -> dict:
    name = f"ip-10-{i // 250}-{i % 250}-{(i * 7) % 250}.ec2.internal"
    zone = f"us-east-1{'abcdefghij'[i % ZONES]}"
    return {
        "apiVersion": "v1", "kind": "Node",
        "metadata": {"name": name, "uid": f"00000000-0000-0000-0000-{i:012d}", "resourceVersion": str(1000 + i),
                     "creationTimestamp": "2025-03-01T10:00:00Z",
                     "labels": {"kubernetes.io/hostname": name, "kubernetes.io/os": "linux", "kubernetes.io/arch": "amd64",
                                "node.kubernetes.io/instance-type": "m5.8xlarge", "topology.kubernetes.io/zone": zone,
                                "topology.kubernetes.io/region": "us-east-1", "eks.amazonaws.com/nodegroup": "general"},
                     "annotations": {"node.alpha.kubernetes.io/ttl": "0",
                                     "volumes.kubernetes.io/controller-managed-attach-detach": "true"}},
        "spec": {"providerID": f"aws:///{zone}/i-{i:017x}"},
        "status": {"capacity": {"cpu": "32", "memory": "130046968Ki", "pods": "110", "ephemeral-storage": "83873772Ki"},
                   "allocatable": {"cpu": "31750m", "memory": "127253496Ki", "pods": "110",
                                   "ephemeral-storage": "76224326324"},
                   "conditions": [{"type": t, "status": "False" if t != "Ready" else "True",
                                   "lastHeartbeatTime": "2025-03-02T10:00:00Z", "reason": r}
                                  for t, r in (("MemoryPressure", "KubeletHasSufficientMemory"),
                                               ("DiskPressure", "KubeletHasNoDiskPressure"),
                                               ("PIDPressure", "KubeletHasSufficientPID"), ("Ready", "KubeletReady"))],
                   "nodeInfo": {"kubeletVersion": "v1.31.2-eks-7f9249a", "containerRuntimeVersion": "containerd://1.7.22",
                                "operatingSystem": "linux", "architecture": "amd64"},
                   "addresses": [{"type": "InternalIP", "address": f"10.{i // 250}.{i % 250}.1"}]},
    }


def template(app: str, cpu: str, memory: str) -> dict:
    return {"metadata": {"labels": {"app": app}},
            "spec": {"containers": [{"name": "app", "image": f"registry.example/{app}:1.4.2",
                                     "resources": {"requests": {"cpu": cpu, "memory": memory},
                                                   "limits": {"memory": memory}},
                                     "ports": [{"containerPort": 8080, "protocol": "TCP"}]}]}}


def pod(name: str, namespace: str, node_name: str, app: str, owner: tuple[str, str], cpu: str, memory: str,
        extra_labels: dict) -> dict:
    kind, owner_name = owner
    return {
        "apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": name, "namespace": namespace, "uid": f"uid-{name}", "resourceVersion": "123456",
                     "creationTimestamp": "2025-03-01T10:05:00Z", "generateName": owner_name + "-",
                     "labels": {"app": app, **extra_labels},
                     "ownerReferences": [{"apiVersion": "apps/v1", "kind": kind, "name": owner_name,
                                          "uid": f"uid-{owner_name}", "controller": True,
                                          "blockOwnerDeletion": True}]},
        "spec": {"containers": [{"name": "app", "image": f"registry.example/{app}:1.4.2",
                                 "imagePullPolicy": "IfNotPresent",
                                 "resources": {"requests": {"cpu": cpu, "memory": memory}, "limits": {"memory": memory}},
                                 "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                                 "readinessProbe": {"httpGet": {"path": "/healthz", "port": 8080}, "periodSeconds": 10},
                                 "volumeMounts": [{"name": "kube-api-access", "mountPath":
                                                   "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": True}],
                                 "terminationMessagePath": "/dev/termination-log"}],
                 "nodeName": node_name, "dnsPolicy": "ClusterFirst", "restartPolicy": "Always",
                 "schedulerName": "default-scheduler", "serviceAccountName": "default", "priority": 0,
                 "terminationGracePeriodSeconds": 30, "enableServiceLinks": True,
                 "preemptionPolicy": "PreemptLowerPriority", "tolerations": DEFAULT_TOLERATIONS,
                 "volumes": [{"name": "kube-api-access", "projected": {"defaultMode": 420, "sources": [
                     {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}}]}}]},
        "status": {"phase": "Running", "qosClass": "Burstable", "hostIP": "10.0.0.1", "podIP": "10.1.2.3",
                   "startTime": "2025-03-01T10:05:01Z",
                   "conditions": [{"type": t, "status": "True", "lastTransitionTime": "2025-03-01T10:05:03Z"}
                                  for t in ("Initialized", "Ready", "ContainersReady", "PodScheduled")],
                   "containerStatuses": [{"name": "app", "ready": True, "restartCount": 0, "started": True,
                                          "image": f"registry.example/{app}:1.4.2",
                                          "state": {"running": {"startedAt": "2025-03-01T10:05:02Z"}}}]},
    }


def dump(nodes: int, pods: int) -> dict:
    node_objs = [node(i) for i in range(nodes)]
    names = [n["metadata"]["name"] for n in node_objs]
    items: list[dict] = list(node_objs)
    for d in range(DAEMONSETS):
        items.append({"apiVersion": "apps/v1", "kind": "DaemonSet", "metadata": {"name": f"agent-{d}", "namespace": "kube-system"},
                      "spec": {"selector": {"matchLabels": {"app": f"agent-{d}"}},
                               "template": template(f"agent-{d}", "50m", "64Mi")}})
        for i, name in enumerate(names):
            items.append(pod(f"agent-{d}-{i:05d}", "kube-system", name, f"agent-{d}", ("DaemonSet", f"agent-{d}"),
                             "50m", "64Mi", {"controller-revision-hash": "5f7d9c", "pod-template-generation": "1"}))
    app_pods = pods - DAEMONSETS * nodes
    per = app_pods // DEPLOYMENTS
    k = 0
    for d in range(DEPLOYMENTS):
        cpu, memory = SIZES[d % len(SIZES)]
        rs = f"app-{d}-7c5ddbdf54"
        items.append({"apiVersion": "apps/v1", "kind": "Deployment", "metadata": {"name": f"app-{d}", "namespace": "apps"},
                      "spec": {"replicas": per, "selector": {"matchLabels": {"app": f"app-{d}"}},
                               "template": template(f"app-{d}", cpu, memory)}})
        for i in range(per):
            items.append(pod(f"{rs}-{i:06d}", "apps", names[k % len(names)], f"app-{d}", ("ReplicaSet", rs), cpu, memory,
                             {"pod-template-hash": "7c5ddbdf54"}))
            k += 1
    return {"apiVersion": "v1", "kind": "List", "metadata": {"resourceVersion": ""}, "items": items}


def import_once(path: Path) -> tuple[dict[str, float], int]:
    """The steps of `playground import` (manifests.import_files), timed one by one."""
    times: dict[str, float] = {}
    start = time.process_time()
    parsed = read_files([str(path)])
    times["read"] = time.process_time() - start
    start = time.process_time()
    data, report = import_dump(parsed, scenario_name([str(path)]))
    pods = [{k: v for k, v in p.items() if k != SOURCE} for p in data.get("pods", [])]
    times["convert"] = time.process_time() - start
    start = time.process_time()
    scenario = scenario_from_data(data)
    times["validate"] = time.process_time() - start
    start = time.process_time()
    scenario_text(Imported(scenario, report, pods))
    times["write TOML"] = time.process_time() - start
    times["total"] = sum(times.values())
    return times, len(scenario.pods) + sum(len(g.entries()) for g in getattr(scenario, "ownedPods", ()))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--pods", type=int, default=150_000)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--yaml", action="store_true", help="write the dump as YAML (-o yaml) instead of JSON")
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / ("dump.yaml" if args.yaml else "dump.json")
        data = dump(args.nodes, args.pods)
        if args.yaml:
            import yaml

            try:
                from yaml import CSafeDumper as Dumper
            except ImportError:  # pragma: no cover
                from yaml import SafeDumper as Dumper

            class KubectlDumper(Dumper):
                """As kubectl writes: every object written out, no anchors and aliases (the dump's
                pods share their tolerations list, which PyYAML would write once and alias)."""

                def ignore_aliases(self, data) -> bool:
                    return True
            path.write_text(yaml.dump(data, Dumper=KubectlDumper, sort_keys=False))
        else:
            path.write_text(json.dumps(data))
        del data
        size = path.stat().st_size
        print(f"dump: {args.nodes:,} nodes, {args.pods:,} pods, {size / 2**20:.0f} MiB of "
              f"{'YAML' if args.yaml else 'JSON'}")
        if args.profile:
            def profiled() -> None:
                with no_gc():
                    import_once(path)
            print_profile(profiled, sort="cumulative")
            return
        runs = []
        for _ in range(args.runs):
            gc.collect()
            with no_gc():  # as import_files does
                times, pods = import_once(path)
            runs.append(times)
        print(f"imported {pods:,} pods; CPU seconds over {args.runs} runs (min / median):")
        for key in runs[0]:
            values = [r[key] for r in runs]
            print(f"  {key:<12} {min(values):7.2f} / {statistics.median(values):7.2f}")


if __name__ == "__main__":
    main()
