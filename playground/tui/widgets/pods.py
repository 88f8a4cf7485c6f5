"""The Pods view: `kubectl get pods -o wide` columns plus what happens to each pod next, with the
selected pod's detail under the table."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Hashable, Iterable, Iterator

from rich.text import Text
from textual import on
from textual.timer import Timer

from ...engine.explain import pod_outlook
from ...engine.store import ChangeSet
from ...units import format_age
from .. import format as fmt
from ..actions import POD_BINDINGS
from .details import DetailPane, pod_detail
from .tableview import Source, TableView, sort_bindings
from .vtable import Column, VirtualTable

if TYPE_CHECKING:
    from ...engine import Simulation
    from ...engine.objects import Pod
    from ..app import PlaygroundApp

CATCH_UP_AT = 400  # pods noted while hidden that make the table catch up (at the keys): ~5 ms


class PodSource(Source):
    sort_key_is_key = True

    def sort_key(self, key: Hashable):
        return key

    def cells(self, key: Hashable):
        sim = self.sim
        pod = sim.store.pods.get(str(key))
        if pod is None:
            return [fmt.plain(key), Text("gone", style="dim")]
        return [
            fmt.plain(pod.namespace),
            fmt.plain(pod.name, "bold"),
            fmt.pod_ready(pod),
            fmt.pod_status_text(pod),
            fmt.plain(pod.node_name or "<none>", "" if pod.node_name else "dim"),
            fmt.plain(fmt.priority_label(pod)),
            fmt.pod_cpu(pod),
            fmt.pod_mem(pod),
            format_age(sim.clock.now - pod.creation_time),
            fmt.plain(pod_outlook(sim, pod), "yellow"),
        ]

    def sort_value(self, column: str, key: Hashable):
        pod = self.sim.store.pods.get(str(key))
        if pod is None:
            return (1,)
        return (0, pod_sort_value(pod, column))

    def sort_values(self, column: str, keys: Iterable[Hashable]) -> Iterator[tuple[Hashable, Any]]:
        return pod_sort_values(self.sim, column, keys)

    # Everything the text is made of marks the pod changed, so the table keeps the texts (a filter
    # over 150,000 pods is then a substring test per row).
    stable_match_text = True

    def match_text(self, key: Hashable) -> str:
        pod = self.sim.store.pods.get(str(key))
        return str(key) if pod is None else pod_match_text(pod)

    def match_texts(self, keys: Iterable[Hashable]) -> Iterator[tuple[Hashable, str]]:
        """(key, text) for many rows at once (loading 150,000 rows)."""
        pods = self.sim.store.pods
        for key in keys:
            pod = pods.get(str(key))
            yield key, str(key) if pod is None else pod_match_text(pod)


# A pod's value for each column of the pod tables (what changes marks the pod changed).
POD_SORT_VALUES: dict[str, Callable[["Pod"], Any]] = {
    "namespace": lambda pod: pod.namespace,
    "name": lambda pod: pod.name,
    "ready": fmt.pod_ready,
    "status": fmt.pod_status,
    "node": lambda pod: pod.node_name or "~",  # <none> last
    "nominated": lambda pod: pod.nominated_node_name or "~",
    "priority": lambda pod: pod.priority,
    "cpu": lambda pod: pod.cpu,
    "memory": lambda pod: pod.memory,
    "age": lambda pod: -pod.creation_time,
}


def _pod_key(pod: "Pod") -> str:
    return str(pod.key)


def pod_sort_value(pod: "Pod", column: str):
    return POD_SORT_VALUES.get(column, _pod_key)(pod)


def pod_sort_values(sim: "Simulation", column: str, keys: Iterable[Hashable]) -> Iterator[tuple[Hashable, Any]]:
    """(key, sort value) of many rows, as their sources' `sort_value` gives them (a sort reads every row)."""
    pods = sim.store.pods
    value_of = POD_SORT_VALUES.get(column, _pod_key)
    for key in keys:
        pod = pods.get(str(key))
        yield key, (1,) if pod is None else (0, value_of(pod))


def pod_match_text(pod: "Pod") -> str:
    return f"{pod.key} {pod.node_name or ''} {fmt.pod_status(pod)} {pod.priority_class_name}"


class PodDetailMixin:
    detail: DetailPane
    table: VirtualTable
    playground: "PlaygroundApp"

    def show_detail(self) -> None:
        key = self.table.cursor_key
        if key is None:
            self.detail.show(Text("no pod selected", style="dim"), key)
        else:
            self.detail.show(pod_detail(self.playground.sim, str(key)), key)

    def frame_detail(self) -> None:
        if self.detail.due(self.table.cursor_key):
            self.show_detail()


class PodsView(PodDetailMixin, TableView):
    DETAIL_ID = "pod-detail"
    TITLE = "Pods"
    FILTER_HINT = "filter pods by namespace/name, node, status or priority class"
    SORTS = (("P", "namespace", "NAMESPACE"), ("N", "name", "NAME"), ("R", "ready", "READY"),
             ("S", "status", "STATUS"), ("O", "node", "NODE"), ("I", "priority", "PRIORITY"), ("C", "cpu", "CPU"),
             ("M", "memory", "MEMORY"), ("A", "age", "AGE"))
    BINDINGS = POD_BINDINGS + sort_bindings(SORTS)
    DEFAULT_CSS = """
    PodsView > #pods-table { height: auto; max-height: 70%; min-height: 4; }
    PodsView > #pod-detail { height: 1fr; min-height: 8; }
    """

    def columns(self) -> list[Column]:
        return [
            Column("namespace", "NAMESPACE", 9, 20),
            Column("name", "NAME", 10, 48),
            Column("ready", "READY", 5, 5),
            Column("status", "STATUS", 8, 20),
            Column("node", "NODE", 6, 30),
            Column("priority", "PRIORITY", 8, 36),
            Column("cpu", "CPU", 4, 8, "right"),
            Column("memory", "MEMORY", 6, 9, "right"),
            Column("age", "AGE", 5, 8, "right", timed=True),
            Column("next", "NEXT", 20, 400, flex=True),
        ]

    def make_source(self) -> Source:
        return PodSource(self)

    def row_keys(self) -> Iterable[str]:
        return self.sim.store.pods

    # While another view is shown, the pods that changed are only noted, and the table catches up when
    # it is shown again: in a zone outage at ×1000 hundreds of pods come and go per frame, and keeping
    # 150,000 sorted rows in step with them frame by frame is the dearest table work of a frame (3 ms
    # more a frame, measured before rows were kept in blocks). A catch-up costs ~13 µs a pod for
    # thousands of pods, 15-30 ms for a thousand (measured in an outage at 150,000 pods): the key that
    # showed the table after 2.5 wall s of an outage waited 70-185 ms. While the user is at the keys
    # the hidden table catches up once CATCH_UP_AT pods are noted: the key that shows it waits for
    # fewer than that. A thousand made a frame every few 15-30 ms longer (about a third of the frames
    # past 16.7 ms at the keys); 400, about a frame's changes at x1000 in a zone outage, cost about
    # 5 ms each at that rate. While the user watches, the frames stay even.
    def __init__(self, playground: "PlaygroundApp", *, id: str) -> None:
        super().__init__(playground, id=id)
        self._changed: set[str] = set()  # pods changed in more than their conditions
        self._conditions: set[str] = set()  # pods whose conditions changed (and perhaps more)
        self._removed: set[str] = set()
        self._unfilled = False  # loaded while hidden: filled when next shown (FILL_WHEN_SHOWN_FROM)
        self._select_when_filled: Hashable | None = None
        self._fill_timer: Timer | None = None

    def shown(self) -> bool:
        return self.playground.current_view == self.id

    def apply(self, changes: ChangeSet) -> None:
        if self._unfilled:
            return  # (the fill reads every pod as it is then)
        self._changed |= changes.pod_fields
        self._conditions |= changes.pods
        self._removed |= changes.removed_pods
        if self.shown() or (len(self._changed) + len(self._removed) >= CATCH_UP_AT
                            and self.playground.at_the_keys()):
            self.catch_up()

    def catch_up(self) -> None:
        """Apply the pods noted since the table was last in step (one pass for them all). A pod whose
        conditions alone changed keeps its row, its place and its match text (READY is drawn from the
        pod): only its line is drawn again if it is on screen."""
        changed, conditions, removed = self._changed, self._conditions, self._removed
        if not changed and not conditions and not removed:
            return
        self._changed, self._conditions, self._removed = set(), set(), set()
        pods = self.sim.store.pods
        conditions -= changed
        if self._placed_by_conditions():
            changed |= conditions
            conditions = set()
        else:
            # a zone going NotReady notes 30,000 pods here: one pass, no call per pod
            moved = [k for k in conditions if (pod := pods.get(k)) is not None and pod.reason]
            changed.update(moved)
            conditions.difference_update(moved)
        gone = [k for k in removed if k not in pods]
        gone += [k for k in changed if k not in pods and k not in removed]
        if gone:
            self.table.remove(gone)
        if changed:
            self.table.upsert([k for k in changed if k in pods])
        if conditions:
            self.table.invalidate(conditions)

    def _placed_by_conditions(self) -> bool:
        """A condition can change a pod's place (a table sorted by READY or STATUS) or its match text
        (STATUS shows the reason of a Running pod that is not ready: catch_up checks `reason`)."""
        return self.table.sort is not None and self.table.sort[0] in ("ready", "status")

    # A state loaded while the table is hidden (the open, every step of time travel, another
    # scenario) fills the table when it is next shown, or once no key has come for a while
    # (PlaygroundApp.at_the_keys), from this many pods: at 150,000 pods the fill is about 0.45 s of
    # the 0.54 s that redrawing every view took, before the first paint of an open and after each
    # step back on the Nodes view. Until then the table holds no row.
    FILL_WHEN_SHOWN_FROM = 10_000
    FILL_CHECK_SECONDS = 0.25  # how often a table left unfilled looks whether the keys are quiet

    def load(self) -> None:
        self._changed, self._conditions, self._removed = set(), set(), set()
        if not self.shown() and len(self.sim.store.pods) >= self.FILL_WHEN_SHOWN_FROM:
            if not self._unfilled:
                self._select_when_filled = self.table.cursor_key
                self._unfilled = True
                self.table.replace_all(())  # (no row of another state is ever shown)
            self._arm_fill()
            return
        self._unfilled = False
        super().load()

    def _arm_fill(self) -> None:
        if self._fill_timer is None:
            self._fill_timer = self.set_timer(self.FILL_CHECK_SECONDS, self._fill_if_quiet)

    def _fill_if_quiet(self) -> None:
        self._fill_timer = None
        if not self._unfilled:
            return
        if self.playground.at_the_keys():
            self._arm_fill()
        else:
            self.playground.when_engine_idle(self._fill)

    def _fill(self) -> None:
        """The fill a hidden load left for now (if it is still to do), the cursor on the row it was
        on where it still is."""
        if not self._unfilled:
            return
        self._unfilled = False
        super().load()
        key, self._select_when_filled = self._select_when_filled, None
        if key is not None:
            self.table.select_key(key)

    def live_count(self) -> int:
        """The tab's count: every pod, even while the table has not caught up."""
        if self._unfilled or self._changed or self._removed:
            return len(self.sim.store.pods)
        return self.table.total_count

    def frame(self, time_moved: bool) -> None:
        self._fill()
        self.catch_up()
        super().frame(time_moved)
        self.frame_detail()

    @on(VirtualTable.CursorMoved, "#pods-table")
    def _cursor(self, event: VirtualTable.CursorMoved) -> None:
        if self.playground.engine_idle:
            self.show_detail()
