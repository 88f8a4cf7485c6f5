"""Detail panes: the selected node (conditions, taints, lease, shutdown groups, pods, and what happens
next with countdowns) and the selected pod (the scheduler's reason in its own words).

They render rich renderables from engine state on each frame in which the clock moved, and only
for the one object selected.
"""

from __future__ import annotations

from itertools import islice
from typing import TYPE_CHECKING

from rich.console import Group, RenderableType
from rich.text import Text
from rich.segment import Segment
from textual import events
from textual.geometry import Size
from textual.scroll_view import ScrollView
from textual.strip import Strip
from textual.visual import Visual, visualize

from ...engine.explain import node_outlook, pod_outlook
from ...engine.nodeshutdown import shutdown_groups
from ...units import format_age, format_duration
from .. import format as fmt
from .lines import Lines, SideBySide, TableBlock, as_lines
from .scrollbar import SteadyScrollbars
from .vtable import set_virtual_size, text_segments

if TYPE_CHECKING:
    from ...engine import Simulation


def _section(title: str, extra: str = "") -> Text:
    text = Text()
    text.append(title, "bold underline")
    if extra:
        text.append("  " + extra, "dim")
    return text


def _table(*headers: str, wrap: int = -1, keep: int = 0, show_header: bool = True) -> TableBlock:
    """A plain table; one column (a message, the last by default) wraps rather than squeezing the
    others, and the first `keep` columns never shrink below their header (on a narrow screen the
    columns on the right are cut, never the TYPE/STATUS a reader needs first)."""
    return TableBlock(*headers, wrap=wrap, keep=keep, show_header=show_header)


def node_detail(sim: "Simulation", name: str) -> RenderableType:
    store = sim.store
    node = store.nodes.get(name)
    if node is None:
        kubelet = sim.kubelets.get(name)
        if kubelet is None:
            return Text(f"node {name} is gone", style="dim")
        text = Text()
        text.append(f" {name} ", "bold reverse")
        text.append("   Node object deleted (kubectl delete node)   machine ", "dim")
        text.append_text(fmt.machine_state(sim, name))
        text.append(f" ({fmt.machine_description(kubelet)})\n\n", "dim")
        text.append("The machine is still there. A kubelet that starts registers the Node again: press e to "
                    "restart the kubelet (K starts a stopped one, o powers the machine on first).")
        return text
    now = sim.clock.now
    kubelet = sim.kubelets.get(name)
    if kubelet is not None:
        kubelet.catch_up_for_reader()
    parts: list[RenderableType] = []

    title = Text()
    title.append(f" {node.name} ", "bold reverse")
    title.append("  ")
    title.append_text(fmt.node_status_text(node))
    title.append("   zone ", "dim")
    title.append(fmt.zone_label(node.zone))
    title.append("   machine ", "dim")
    title.append_text(fmt.machine_state(sim, name))
    if kubelet is not None:
        title.append(f" ({fmt.machine_description(kubelet)})", "dim")
    title.append("   age ", "dim")
    title.append(format_age(now - node.creation_time))
    parts.append(title)

    # What happens next: the controllers' own timers, as countdowns.
    outlook = node_outlook(sim, name)
    parts.append(_section("What happens next"))
    if outlook:
        for line in outlook:
            parts.append(Text("  ▸ " + line, style="bold yellow"))
    else:
        parts.append(Text("  nothing is counting down for this node", style="dim"))

    drain = fmt.drain_status(sim, name)
    if drain is not None:
        parts.extend(_drain_section(sim, drain))

    # The newest events, newest first and near the top: what just happened is what the user looks for.
    recent = recent_events(sim, name, {p.key for p in store.pods_on(name)}, 6)
    if recent:
        parts.append(_section("Recent events", "about this node and its pods, newest first"))
        events = _table("AT", "TYPE", "REASON", "OBJECT", "MESSAGE", keep=3)
        events.max_widths[2:5] = [24, 24, 80]
        for event in reversed(recent):
            events.add_row(format_duration(event.time), Text(event.type, style="yellow" if event.type == "Warning" else ""),
                           fmt.plain(event.reason), fmt.plain(event.object), fmt.plain(event.message))
        parts.append(events)

    # Conditions.
    conditions = _table("TYPE", "STATUS", "REASON", "MESSAGE", "LAST HEARTBEAT", "LAST TRANSITION", wrap=3, keep=2)
    conditions.min_widths[0] = max((len(t) for t in node.conditions), default=4)
    conditions.max_widths[3] = 48
    for cond in node.conditions.values():
        status_style = {"True": "green", "False": "yellow", "Unknown": "bold red"}.get(cond.status, "")
        if cond.type != "Ready" and cond.status == "False":
            status_style = "green"
        conditions.add_row(
            cond.type, Text(cond.status, style=status_style), fmt.plain(cond.reason), fmt.plain(cond.message),
            f"{fmt.sim_time(cond.last_heartbeat_time)} ({fmt.ago(now, cond.last_heartbeat_time)})",
            f"{fmt.sim_time(cond.last_transition_time)} ({fmt.ago(now, cond.last_transition_time)})",
        )
    parts.append(_section("Conditions"))
    parts.append(conditions)

    # Taints and the lease, side by side.
    taints = _table("TAINT", "ADDED")
    for taint in node.taints:
        effect_style = "bold red" if taint.effect == "NoExecute" else "yellow"
        label = fmt.plain(str(taint), effect_style)
        added = "-" if taint.time_added is None else f"{fmt.sim_time(taint.time_added)} ({fmt.ago(now, taint.time_added)})"
        taints.add_row(label, added)
    if not node.taints:
        taints.add_row(Text("none", style="dim"), "")
    lease = _table("LEASE", "", show_header=False)
    lease_obj = store.leases.get(name)
    if lease_obj is None:
        lease.add_row(Text("no Lease", style="dim"), "")
    else:
        grace = sim.nodelifecycle.config.node_monitor_grace_period
        renew = kubelet.lease_renew_time if kubelet is not None else None
        age = None if renew is None else now - renew
        lease.add_row("name", f"{lease_obj.namespace}/{lease_obj.name}")
        lease.add_row("holderIdentity", fmt.plain(lease_obj.holder_identity))
        lease.add_row("leaseDurationSeconds", str(lease_obj.lease_duration_seconds))
        age_style = "bold red" if age is not None and age > grace else ""
        renew_text = Text(f"{fmt.sim_time(renew)} ", end="")
        renew_text.append(f"({fmt.elapsed(age)} ago)" if age is not None else "", style=age_style)
        lease.add_row("renewTime", renew_text)
        lease.add_row("node-monitor-grace-period", format_duration(grace))
    parts.append(SideBySide([_section("Taints"), taints], [_section("Lease", "kube-node-lease"), lease]))

    # Shutdown groups from the kubelet config (shutdownGracePeriod/CriticalPods migrated to groups).
    if kubelet is not None:
        groups = shutdown_groups(kubelet.config)
        cfg = kubelet.config
        if cfg.shutdown_grace_period_by_pod_priority:
            origin = "shutdownGracePeriodByPodPriority"
        else:
            origin = (f"shutdownGracePeriod {format_duration(cfg.shutdown_grace_period)}, "
                      f"shutdownGracePeriodCriticalPods {format_duration(cfg.shutdown_grace_period_critical_pods)}")
        parts.append(_section("Shutdown groups", origin))
        if not groups:
            parts.append(Text("  graceful node shutdown is not configured: a shutdown powers off at once",
                              style="dim"))
        else:
            state = kubelet.shutdown
            line = Text("  ")
            for i, group in enumerate(groups):
                label = f"priority ≥ {group.priority}: {group.seconds}s"
                style = ""
                if state is not None:
                    if i < state.index:
                        style = "dim strike"
                    elif i == state.index:
                        left = max(0, (state.group_ends_at or now) - now)
                        label += f" ◀ running, {format_duration(left // 1000 * 1000)} left, {len(state.waiting)} pod(s) stopping"
                        style = "bold yellow"
                line.append(label, style)
                if i < len(groups) - 1:
                    line.append("  →  ", "dim")
            parts.append(line)

    # Pods on the node.
    pods = sorted(store.pods_on(name), key=lambda p: (-p.priority, p.name))
    pod_table = _table("POD", "STATUS", "PRIORITY", "CPU", "MEMORY", "NEXT")
    pod_table.max_widths[5] = 70
    for pod in pods:
        pod_table.add_row(fmt.plain(pod.key), fmt.pod_status_text(pod), fmt.plain(fmt.priority_label(pod)),
                          fmt.pod_cpu(pod), fmt.pod_mem(pod), fmt.plain(pod_outlook(sim, pod), "yellow"))
    parts.append(_section("Pods", f"{len(pods)} (requests {fmt.cpu_pair(node.requested_cpu, node.allocatable_cpu)} cpu, "
                                  f"{fmt.mem_pair(node.requested_memory, node.allocatable_memory)} memory)"))
    if pods:
        parts.append(pod_table)

    return Lines(parts)


def recent_events(sim: "Simulation", node: str, pod_keys: set[str], count: int, scan: int = 600) -> list:
    """The newest events about a node or its pods, looking back at most `scan` events (bounded work)."""
    wanted = f"Node/{node}"
    pod_refs = {f"Pod/{key}" for key in pod_keys}
    out = []
    for event in islice(reversed(sim.store.recorder.events), scan):
        if (event.object == wanted or event.object in pod_refs) and fmt.is_cluster_event(event):
            out.append(event)
            if len(out) >= count:
                break
    return out[::-1]


def _drain_section(sim: "Simulation", status) -> list[RenderableType]:
    now = sim.clock.now
    parts: list[RenderableType] = []
    head = Text()
    head.append_text(fmt.drain_text(sim, status.node))
    head.append(f"   kubectl drain {status.node} {fmt.drain_flags(status.options)}".rstrip(), "dim")
    head.append(f"   started {format_duration(status.started_at)} ({fmt.ago(now, status.started_at)})", "dim")
    parts.append(_section("Drain"))
    parts.append(Text("  ") + head)
    remaining = status.remaining
    if status.phase == "Running":
        line = Text(f"  {len(remaining)} of {len(status.pods)} pod(s) still to go", style="bold")
        retry = status.next_retry
        if retry is not None:
            line.append(f"; next eviction retry in {format_duration(max(0, retry - now) // 1000 * 1000)}", "yellow")
        if status.deadline is not None:
            line.append(f"; --timeout ends it in {format_duration(max(0, status.deadline - now) // 1000 * 1000)}",
                        "yellow")
        parts.append(line)
    if status.error:
        parts.append(Text(f"  error: {status.error}", style="bold red"))
    blocked = [p for p in status.pods.values() if p.state == "Blocked"]
    if blocked:
        table = _table("BLOCKED POD", "BY BUDGET", "REFUSALS", "WHY (429)")
        table.max_widths[3] = 90
        for entry in blocked[:8]:
            table.add_row(fmt.plain(entry.key), fmt.plain(entry.blocked_by or "-", "bold red"), str(entry.refusals),
                          fmt.plain(entry.cause or entry.message))
        parts.append(table)
        if len(blocked) > 8:
            parts.append(Text(f"  … and {len(blocked) - 8} more blocked", style="dim"))
    output = list(status.output)[-4:]
    for at, stream, line in output:
        parts.append(Text(f"  {format_duration(at):>8}  {line}", style="red" if stream == "err" else "dim",
                          overflow="ellipsis", no_wrap=True))
    return parts


def pdb_detail(sim: "Simulation", key: str) -> RenderableType:
    pdb = sim.store.pdbs.get(key) if hasattr(sim.store, "pdbs") else None
    if pdb is None:
        return Text(f"PodDisruptionBudget {key} is gone", style="dim")
    now = sim.clock.now
    parts: list[RenderableType] = []
    title = Text()
    title.append(f" {pdb.key} ", "bold reverse")
    title.append("   selector ", "dim")
    title.append(", ".join(f"{k}={v}" for k, v in sorted(pdb.selector.items())))
    if pdb.min_available is not None:
        title.append("   minAvailable ", "dim")
        title.append(str(pdb.min_available))
    if pdb.max_unavailable is not None:
        title.append("   maxUnavailable ", "dim")
        title.append(str(pdb.max_unavailable))
    parts.append(title)
    status = Text("  ")
    status.append(f"currentHealthy {pdb.current_healthy}  desiredHealthy {pdb.desired_healthy}  "
                  f"expectedPods {pdb.expected_pods}  ")
    status.append(f"disruptionsAllowed {pdb.disruptions_allowed}",
                  "bold green" if pdb.disruptions_allowed > 0 else "bold red")
    parts.append(_section("Status"))
    parts.append(status)
    for cond in pdb.conditions.values():
        parts.append(Text(f"  {cond.type}={cond.status} {cond.reason} {cond.message}".rstrip(), style="dim"))
    if pdb.disrupted_pods:
        parts.append(_section("disruptedPods", "evictions the controller has not seen finish yet (2m timeout)"))
        for pod, at in sorted(pdb.disrupted_pods.items()):
            parts.append(Text(f"  {pod}  evicted at {format_duration(at)} ({fmt.ago(now, at)})"))
    blocking = fmt.pdb_blocking(sim, pdb.key)
    if blocking:
        parts.append(_section("Blocking drains"))
        for node, pods in sorted(blocking.items()):
            parts.append(Text(f"  kubectl drain {node}: {len(pods)} pod(s) refused: {', '.join(pods[:6])}",
                              style="bold red"))
    return Lines(parts)


def pod_detail(sim: "Simulation", key: str) -> RenderableType:
    pod = sim.store.pods.get(key)
    if pod is None:
        return Text(f"pod {key} is gone", style="dim")
    now = sim.clock.now
    parts: list[RenderableType] = []
    title = Text()
    title.append(f" {pod.key} ", "bold reverse")
    title.append("  ")
    title.append_text(fmt.pod_status_text(pod))
    title.append("   node ", "dim")
    title.append(pod.node_name or "-")
    title.append("   priority ", "dim")
    title.append(fmt.priority_label(pod))
    title.append("   requests ", "dim")
    title.append(f"cpu {fmt.pod_cpu(pod)}, memory {fmt.pod_mem(pod)}")
    if pod.owner is not None:
        title.append("   owner ", "dim")
        title.append(f"{pod.owner.kind}/{pod.owner.name}")
    title.append("   age ", "dim")
    title.append(format_age(now - pod.creation_time))
    parts.append(title)
    if not pod.node_name:
        parts.append(_section("Scheduling queue"))
        queue = Text("  ")
        queue.append_text(fmt.queue_text(sim, pod))
        if pod.nominated_node_name:
            queue.append(f"   nominatedNodeName {pod.nominated_node_name}", "cyan")
        parts.append(queue)
        parts.append(_section("kube-scheduler says"))
        attempt = sim.scheduler.last_attempt.get(pod.key)
        if attempt is not None:
            parts.append(Text(f"  {attempt.message}", style="bold"))
            parts.append(Text(f"  (last attempt at {format_duration(attempt.time)}, {fmt.ago(now, attempt.time)})",
                              style="dim"))
        else:
            parts.append(Text("  no scheduling attempt yet", style="dim"))
    outlook = pod_outlook(sim, pod)
    if outlook and pod.node_name:
        parts.append(_section("What happens next"))
        parts.append(Text("  ▸ " + outlook, style="bold yellow"))
    conds = _table("CONDITION", "STATUS", "REASON", "MESSAGE")
    for cond in pod.conditions.values():
        conds.add_row(cond.type, cond.status, fmt.plain(cond.reason), fmt.plain(cond.message))
    if pod.conditions:
        parts.append(_section("Conditions"))
        parts.append(conds)
    if pod.tolerations:
        parts.append(_section("Tolerations"))
        parts.append(Text("  " + ", ".join(str(t) for t in pod.tolerations), style="dim"))
    return Lines(parts)


# While the clock runs, the same object's detail is redrawn at most this often (wall seconds). Its
# table of pods and events is the dearest thing on screen (a node with 110 pods); at 30 frames a
# second and ×1000 it would change faster than anyone reads it. A new selection shows at once.
DETAIL_PERIOD = 0.25

_NOTHING = object()

# Rendered lines a detail pane keeps for lines drawn again: a few screens' worth.
RENDERED_LINES_KEPT = 1024


class DetailPane(SteadyScrollbars, ScrollView):
    """A scrolling pane showing one renderable; the view sets what it shows each frame (`due`).

    It draws its content's lines itself (Textual's line API): its box is fixed by the layout
    (`height: 1fr`), so new content changes only its scroll range, and a cursor move repaints the pane
    instead of laying out the whole screen twice (once for the content's new height, once for the
    pane's scroll range: half the UI's cost of a key at 150,000 pods). Content made of Texts and tables
    (`lines.Lines`) is laid out as screen lines and only the lines on screen are rendered; anything
    else is rendered whole, once per update."""

    DEFAULT_CSS = """
    DetailPane {
        height: 1fr;
        border-top: solid $primary-muted;
        padding: 0 1;
        background: $surface;
        overflow-x: hidden;
    }
    """

    def __init__(self, *, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(id=id, classes=classes)
        self.can_focus = False
        self._key: object = _NOTHING  # whose detail is shown
        self._at = 0.0  # the runner's wall clock when it was drawn
        self._renderable: RenderableType = ""
        self._lines: Lines | None = None
        self._texts: list[Text] = []  # the screen lines of `_lines` at `_width`
        self._strips: list[Strip | None] = []  # rendered lines (None: not yet)
        self._width = 0  # the width the lines were laid out at (0: none yet)
        # A line's text -> its strip, at `_rendered_for` (width, base style). Most lines of a detail
        # drawn again (every DETAIL_PERIOD while running, on a view switch) are what they were, and
        # rendering a line of spans is most of what painting the pane costs.
        self._rendered: dict[tuple, Strip] = {}
        self._rendered_for: tuple = ()
        self._paint: tuple | None = None  # (width, base style) while render_lines runs

    @property
    def content(self) -> RenderableType:
        """What it shows (as Static.content)."""
        return self._renderable

    def due(self, key: object) -> bool:
        """Redraw `key`'s detail this frame? Yes for another object, while paused or stepping, and
        otherwise every DETAIL_PERIOD."""
        runner = getattr(self.app, "runner", None)
        return runner is None or key != self._key or runner.redraw_due(self._at, DETAIL_PERIOD)

    def forget(self) -> None:
        """Another simulation: whatever is shown is stale."""
        self._key = _NOTHING

    def show(self, renderable: RenderableType, key: object = _NOTHING) -> None:
        self._renderable = renderable
        self._lines = as_lines(renderable)
        self._width = 0
        width = self.scrollable_content_region.width
        if width:
            self._render_at(width)
            self._update_virtual_size()
        self.refresh()
        self._key = key
        runner = getattr(self.app, "runner", None)
        self._at = runner.clock() if runner is not None else 0.0

    def _render_at(self, width: int) -> None:
        if self._lines is not None:
            self._texts = self._lines.lines(width)
            self._strips = [None] * len(self._texts)
        else:
            visual = visualize(self, self._renderable, markup=False)
            self._strips = list(Visual.to_strips(self, visual, width, None, self.visual_style))
        self._width = width

    def _update_virtual_size(self) -> None:
        set_virtual_size(self, Size(self._width, len(self._strips)))

    def on_resize(self, event: events.Resize) -> None:
        width = self.scrollable_content_region.width
        if width and width != self._width:
            self._render_at(width)
            self._update_virtual_size()
            self.refresh()

    def render_lines(self, crop):
        # The widget's style walks its ancestors each time it is read, and its content region is
        # computed: once a paint, not once a line (they were most of a redrawn pane's cost).
        self._paint = (self.scrollable_content_region.width, self.rich_style)
        try:
            return super().render_lines(crop)
        finally:
            self._paint = None

    def render_line(self, y: int) -> Strip:
        width, base = self._paint or (self.scrollable_content_region.width, self.rich_style)
        if width != self._width:
            # The scrollbar came or went since the last layout: the lines wrap at the new width.
            self._render_at(width)
            self.call_later(self._update_virtual_size)
        index = self.scroll_offset.y + y
        if index >= len(self._strips):
            return Strip.blank(width, base)
        strip = self._strips[index]
        if strip is None:
            strip = self._strips[index] = self._line_strip(self._texts[index], width, base)
        return strip

    def _line_strip(self, text: Text, width: int, base) -> Strip:
        if self._rendered_for != (width, base) or len(self._rendered) > RENDERED_LINES_KEPT:
            self._rendered = {}
            self._rendered_for = (width, base)
        key = (text.plain, text.style, tuple(text.spans), text.end)
        strip = self._rendered.get(key)
        if strip is None:
            segments = Segment.apply_style(text_segments(text, self.app.console), base)
            strip = self._rendered[key] = Strip(list(segments)).crop_extend(0, width, base)
        return strip
