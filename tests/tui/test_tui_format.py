"""What the tables print, in kubectl's words."""

from __future__ import annotations

from datetime import datetime, timezone

from freezegun import freeze_time

from playground.engine import Operation, Simulation
from playground.engine.objects import Condition, Node, Taint
from playground.scenario import load_scenario
from playground.tui import format as fmt

from tui_helpers import SMALL


def node(ready: str | None, unschedulable: bool = False) -> Node:
    n = Node("n", "uid", {}, 1000, 1 << 30, 110, 1000, 1 << 30, 110, 0, unschedulable=unschedulable)
    if ready is not None:
        n.conditions["Ready"] = Condition("Ready", ready)
    return n


def test_node_status_as_kubectl_prints_it():
    assert fmt.node_status(node("True")) == "Ready"
    assert fmt.node_status(node("False")) == "NotReady"
    assert fmt.node_status(node("Unknown")) == "NotReady"  # printNode: anything but True is NotReady
    assert fmt.node_status(node(None)) == "Unknown"
    assert fmt.node_status(node("True", unschedulable=True)) == "Ready,SchedulingDisabled"


def test_compact_taints():
    taints = [Taint("node.kubernetes.io/unreachable", "NoSchedule"), Taint("node.kubernetes.io/unreachable", "NoExecute"),
              Taint("dedicated", "NoSchedule", "db")]
    assert fmt.compact_taints(taints) == "unreachable:NS+NE, dedicated=db:NS"
    assert fmt.compact_taints([]) == ""


def test_quantities_as_kubectl_prints_them():
    """resource.Quantity's canonical form: whole cores plain, anything else in millicores (kubectl
    shows 500m, never 0.5)."""
    assert fmt.format_cpu(4000) == "4" and fmt.format_cpu(3500) == "3500m" and fmt.format_cpu(250) == "250m"
    assert fmt.format_cpu(500) == "500m" and fmt.format_cpu(0) == "0"
    assert fmt.cpu_pair(2600, 4000) == "2600m/4"
    assert fmt.mem_pair(0, 16 << 30) == "0/16Gi"


def test_wall_time_is_the_scenario_epoch_plus_simulated_time():
    assert fmt.wall_time(0) == "2026-01-01 00:00:00Z"
    assert fmt.wall_time(133_000) == "2026-01-01 00:02:13Z"
    assert fmt.wall_time(1_500) == "2026-01-01 00:00:01.5Z"
    assert fmt.wall_time(0, datetime(2030, 5, 1, tzinfo=timezone.utc)) == "2030-05-01 00:00:00Z"


def test_the_clock_on_screen_does_not_depend_on_the_wall_clock():
    from playground.tui.widgets.header import header_text

    class Fake:
        sim = Simulation(load_scenario(SMALL))
        scenario_path = SMALL
        epoch = fmt.SCENARIO_EPOCH

        class runner:
            paused, busy, speed = True, False, 1

    with freeze_time("2031-07-04 12:00:00"):
        one = header_text(Fake).plain  # type: ignore[arg-type]
    with freeze_time("1999-12-31 23:59:59"):
        two = header_text(Fake).plain  # type: ignore[arg-type]
    assert one == two and "2026-01-01 00:00:00Z" in one and "PAUSED" in one


def test_pod_status_and_lease_age():
    sim = Simulation(load_scenario(SMALL))
    sim.run_until(5)
    pods = {p.name: p for p in sim.store.pods.values()}
    assert fmt.pod_status(pods["huge"]) == "Pending"
    assert fmt.is_pending(pods["huge"])
    web = next(p for p in pods.values() if p.name.startswith("web-"))
    assert fmt.pod_status(web) == "Running" and fmt.pod_ready(web) == "1/1"
    assert fmt.lease_age(sim, "a-1") == 5000
    sim.apply(Operation("power-off", node="a-1"))
    sim.run_until(70)
    assert fmt.lease_age(sim, "a-1") == 70_000  # no renewal since time 0
    assert fmt.lease_age_text(sim, "a-1").style == "bold red"  # past node-monitor-grace-period (50s)
    assert fmt.lease_age_text(sim, "a-2").style == ""


def test_watched_durations_keep_their_seconds_past_ten_minutes():
    """Lease age and "ago" tick by the second at any length; AGE columns keep kubectl's HumanDuration."""
    assert fmt.elapsed(754_000) == "12m34s" and fmt.elapsed(3_723_000) == "1h2m3s" and fmt.elapsed(600_000) == "10m"
    assert fmt.ago(800_000, 46_000) == "12m34s ago"
    sim = Simulation(load_scenario(SMALL))
    sim.run_until(5)
    sim.apply(Operation("power-off", node="a-1"))
    sim.run_until(754)
    assert fmt.lease_age_text(sim, "a-1").plain == "12m34s"


def test_a_node_without_a_zone_and_a_powered_off_machine_in_words():
    assert fmt.zone_label("") == "<none>" and fmt.zone_label("zone-a") == "zone-a"
    sim = Simulation(load_scenario(SMALL))
    sim.run_until(5)
    sim.apply(Operation("power-off", node="a-1"))
    assert fmt.machine_description(sim.kubelets["a-1"]) == "power off: no network, kubelet not running"
    assert fmt.machine_description(sim.kubelets["a-2"]) == "power on, network connected, kubelet running"


def test_reading_lease_ages_between_ticks_changes_nothing_the_engine_does():
    """The UI reads lease ages between ticks; an operation at that instant runs before the kubelets,
    so a renewal due at that very instant must not be written by the read (it made a power-off that
    followed count it: NotReady one renewal later than a replay of the session)."""
    def not_ready_at(read: bool) -> int:
        sim = Simulation(load_scenario(SMALL))
        sim.run_until(20)  # a renewal of b-2's lease is due at this instant
        if read:
            for name in sim.store.nodes:
                fmt.lease_age(sim, name)
        sim.apply(Operation("power-off", node="b-2"))
        sim.run_until(100)
        return next(e.time for e in sim.store.recorder.events if e.reason == "NodeNotReady")

    assert not_ready_at(read=True) == not_ready_at(read=False) == 65_000
