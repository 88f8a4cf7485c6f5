"""A scenario's timeline as the kubectl commands a user would type, each at its time.

Node failures use kwok's switch: kwok keeps the heartbeats (Lease renewals and node status) of the
nodes annotated kwok.x-k8s.io/node=fake, so removing that annotation makes a node stop
heartbeating, as a powered-off machine or a cut-off kubelet does, and the node lifecycle controller
takes over; putting it back is the machine coming back. kwok has no kubelet shutdown manager: a
graceful `shutdown` is played as the node going silent (the script says so where it happens).
A drain runs in the background as a user's terminal would, so later commands keep their times;
`cancel-drain` interrupts it.
"""

from __future__ import annotations

import json

from ..scenario.schema import PodSpecFields, Scenario, parse_taint
from ..scenario.validation import removal_spec
from ..units import format_duration
from .exporter import KWOK_ANNOTATION, pod_manifest, shell

HEADER = """#!/usr/bin/env bash
# The timeline of scenario {name!r} as kubectl commands, written by `playground export`.
# Apply the manifests first (kubectl apply -f {folder_hint}), then run this script. Times are the
# scenario's, divided by SPEED (default {speed}; e.g. SPEED=10 ./timeline.sh runs ten times faster).
set -euo pipefail
cd "$(dirname "$0")"
SPEED="${{SPEED:-{speed}}}"
START="$(date +%s.%N)"
declare -A DRAINS=()

# at SECONDS: sleep until SECONDS of scenario time (divided by SPEED) have passed since the start
at() {{
  local wait
  wait="$(awk -v s="$START" -v t="$1" -v k="$SPEED" -v now="$(date +%s.%N)" 'BEGIN {{ w = s + t / k - now; print (w > 0 ? w : 0) }}')"
  sleep "$wait"
  echo "--- t=$1s: ${{2:-}}" >&2
}}
"""

FOOTER = """
wait  # for drains still running
"""


def drain_command(entry) -> list[str]:
    words = ["kubectl", "drain", entry.node]
    if entry.ignoreDaemonsets:
        words.append("--ignore-daemonsets")
    if entry.deleteEmptydirData:
        words.append("--delete-emptydir-data")
    if entry.force:
        words.append("--force")
    if entry.gracePeriodSeconds is not None:
        words.append(f"--grace-period={entry.gracePeriodSeconds}")
    if entry.timeout is not None:
        words.append(f"--timeout={format_duration(entry.timeout)}")
    if entry.disableEviction:
        words.append("--disable-eviction")
    if entry.podSelector:
        words.append(f"--pod-selector={entry.podSelector}")
    if entry.skipWaitForDeleteTimeout is not None:
        words.append(f"--skip-wait-for-delete-timeout={entry.skipWaitForDeleteTimeout}")
    return words


def _seconds(ms: int) -> str:
    return f"{ms // 1000}" if ms % 1000 == 0 else f"{ms / 1000:.3f}".rstrip("0")


def timeline_script(scenario: Scenario, speed: float = 1.0) -> tuple[str, dict[str, list[dict]]]:
    """(timeline.sh, extra manifest files it applies: pods created later, rollouts)."""
    speed_text = f"{speed:g}"
    lines = [HEADER.format(name=scenario.scenario.name, speed=speed_text, folder_hint=".")]
    extra: dict[str, list[dict]] = {}
    templates = {(d.namespace, d.name): d for d in scenario.deployments}
    current = {key: d.template for key, d in templates.items()}
    events = [(p.at, 0, "create", p) for p in scenario.pods if p.at and not getattr(p, "owner", None)]
    events += [(e.at, 1, i, e) for i, e in enumerate(scenario.timeline)]
    events.sort(key=lambda e: (e[0], e[1], e[2] if isinstance(e[2], int) else 0))
    for n, (at, _, _, item) in enumerate(events, 1):
        if not hasattr(item, "do"):
            path = f"timeline/{n:03d}-pod-{item.name}.yaml"
            extra[path] = [pod_manifest(item)]
            lines += [f"at {_seconds(at)} 'create pod {item.name}'", shell("kubectl", "apply", "-f", path), ""]
            continue
        lines += [f"at {_seconds(at)} {shell(item.do + (' ' + item.node if item.node else ''))}"]
        lines += _commands(item, n, extra, templates, current)
        lines.append("")
    lines.append(FOOTER)
    return "\n".join(lines), extra


def _commands(entry, n: int, extra: dict, templates: dict, current: dict) -> list[str]:
    do, node, ns = entry.do, entry.node, entry.namespace
    if do in ("power-off", "partition", "stop-kubelet"):
        return [f"# {do}: kwok stops heartbeating for the node (no Lease renewals, no status updates)",
                shell("kubectl", "annotate", "node", node, f"{KWOK_ANNOTATION}-")]
    if do == "shutdown":
        return ["# shutdown: kwok has no kubelet shutdown manager; the node goes silent as after a power-off",
                shell("kubectl", "annotate", "node", node, f"{KWOK_ANNOTATION}-")]
    if do in ("power-on", "heal", "start-kubelet"):
        return [f"# {do}: kwok heartbeats for the node again",
                shell("kubectl", "annotate", "--overwrite", "node", node, f"{KWOK_ANNOTATION}=fake")]
    if do == "restart-kubelet":
        return ["# restart-kubelet: a short silence, then heartbeats again",
                shell("kubectl", "annotate", "node", node, f"{KWOK_ANNOTATION}-"),
                shell("kubectl", "annotate", "--overwrite", "node", node, f"{KWOK_ANNOTATION}=fake")]
    if do in ("cordon", "uncordon"):
        return [shell("kubectl", do, node)]
    if do == "drain":
        return [shell(*drain_command(entry)) + " &", f"DRAINS[{shell(node)}]=$!"]
    if do == "cancel-drain":
        return [f"kill \"${{DRAINS[{shell(node)}]}}\" 2>/dev/null || true  # interrupt the drain (Ctrl-C)"]
    if do == "delete-node":
        return [shell("kubectl", "delete", "node", node)]
    if do == "taint":
        key, value, effect = parse_taint(entry.taint)
        words = ["kubectl", "taint", "nodes", node, f"{key}={value}:{effect}" if value else f"{key}:{effect}"]
        if entry.overwrite:
            words.append("--overwrite")
        return [shell(*words)]
    if do == "untaint":
        return [shell("kubectl", "taint", "nodes", node, removal_spec(entry.taint))]
    if do == "create-pod":
        own_ns, _, name = entry.pod.partition("/") if "/" in entry.pod else (ns, "", entry.pod)
        path = f"timeline/{n:03d}-pod-{name}.yaml"
        spec = entry.spec or PodSpecFields()
        extra[path] = [pod_manifest(spec, name=name, namespace=own_ns, node=entry.node)]
        return [shell("kubectl", "apply", "-f", path)]
    if do == "delete-pod":
        pod_ns, _, name = entry.pod.partition("/") if "/" in entry.pod else (ns, "", entry.pod)
        words = ["kubectl", "delete", "pod", name, "-n", pod_ns, "--wait=false"]
        if entry.gracePeriodSeconds is not None:
            words.append(f"--grace-period={entry.gracePeriodSeconds}")
        return [shell(*words)]
    if do == "scale":
        return [shell("kubectl", "scale", f"deployment/{entry.deployment}", "-n", ns, f"--replicas={entry.replicas}")]
    if do == "rollout":
        return _rollout(entry, n, extra, templates, current)
    if do == "rollout-undo":
        return [shell("kubectl", "rollout", "undo", f"deployment/{entry.deployment}", "-n", ns)]
    if do == "pause-rollout":
        return [shell("kubectl", "rollout", "pause", f"deployment/{entry.deployment}", "-n", ns)]
    if do == "resume-rollout":
        return [shell("kubectl", "rollout", "resume", f"deployment/{entry.deployment}", "-n", ns)]
    if do == "set-strategy":
        strategy = entry.strategy.model_dump(exclude_none=True)
        if strategy.get("type") == "Recreate":
            strategy["rollingUpdate"] = None  # a merge patch must clear it: Recreate takes none
        patch = json.dumps({"spec": {"strategy": strategy}}, separators=(",", ":"))
        return [shell("kubectl", "patch", "deployment", entry.deployment, "-n", ns, "--type=merge", "-p", patch)]
    return [f"# {do}: no kubectl equivalent"]  # pragma: no cover - every operation is handled above


def _rollout(entry, n: int, extra: dict, templates: dict, current: dict) -> list[str]:
    """A rollout changes the template: the Deployment as it is after the change, applied."""
    from .exporter import _template, selector_of

    key = (entry.namespace, entry.deployment)
    deployment = templates.get(key)
    if deployment is None or entry.spec is None:
        return [f"# rollout of {entry.deployment}: no such Deployment in the scenario"]
    changed = entry.spec.model_dump(exclude_unset=True)
    template = current[key].model_copy(update={k: getattr(entry.spec, k) for k in changed})
    current[key] = template
    selector = selector_of(deployment.name, deployment.template)
    patch = {"spec": {"template": _template(template, selector)}}
    return [shell("kubectl", "patch", "deployment", entry.deployment, "-n", entry.namespace, "--type=merge", "-p",
                  json.dumps(patch, separators=(",", ":")))]
