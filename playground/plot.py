"""`playground sim FILE --plot out.svg|out.png`: the TUI's plot strip as a file for reports.

One small panel per figure (Ready nodes per zone, pending pods, running pods, evictions), drawn as
steps over the run's virtual time from the samples the history recorded (engine/metrics.py), the
instant the run ended marked. matplotlib writes SVG and PNG from the same code; the SVG is made
reproducible (no date, a fixed hash salt) so that the same run writes the same file.
"""

from __future__ import annotations

from pathlib import Path

from .engine.metrics import Series, metric_title, metric_value
from .units import format_duration

FORMATS = (".svg", ".png")


def plot_problem(path: str) -> str | None:
    """Why `path` cannot be written as a plot, or None."""
    suffix = Path(path).suffix.lower()
    if suffix not in FORMATS:
        return f"--plot: the file name must end in .svg or .png, got {path!r}"
    if not Path(path).resolve().parent.is_dir():
        return f"--plot: the folder of {path!r} does not exist"
    return None


def steps(series: Series, metric: str, end: int) -> tuple[list[float], list[float]]:
    """Step points (minutes, value) of `metric` from 0 to `end` ms."""
    xs: list[float] = []
    ys: list[float] = []
    for sample in series.samples:
        if sample[0] > end:
            break
        xs.append(sample[0] / 60_000)
        ys.append(metric_value(sample, metric))
    if not xs or xs[0] > 0:
        xs.insert(0, 0.0)
        ys.insert(0, ys[0] if ys else 0)
    xs.append(end / 60_000)
    ys.append(ys[-1])
    return xs, ys


def write_plot(series: Series, now: int, path: str, title: str) -> Path:
    import matplotlib.pyplot as plt

    fig = plot_figure(series, now, title)
    out = Path(path)
    fig.savefig(out, metadata={"Date": None} if out.suffix.lower() == ".svg" else {"Software": None})
    plt.close(fig)
    return out


def plot_figure(series: Series, now: int, title: str):
    """The figure write_plot writes (matplotlib's Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    matplotlib.rcParams["svg.hashsalt"] = "cluster-playground"
    import matplotlib.pyplot as plt

    metrics = series.metrics()
    height = 1.3 * len(metrics) + 0.6
    fig, axes = plt.subplots(len(metrics), 1, figsize=(8, height), sharex=True)
    if len(metrics) == 1:
        axes = [axes]
    for ax, metric in zip(axes, metrics):
        xs, ys = steps(series, metric, now)
        ax.step(xs, ys, where="post", linewidth=1.2)
        ax.set_ylabel(metric_title(metric), rotation=0, ha="right", va="center", fontsize=8)
        ax.axvline(now / 60_000, color="tab:red", linewidth=0.8)
        ax.tick_params(labelsize=7)
        ax.set_ylim(bottom=0, top=max(ys) * 1.1 + 1)
        ax.grid(True, linewidth=0.3)
    axes[-1].set_xlabel("virtual time (minutes)", fontsize=8)
    # The title 0.08 inch from the top whatever the figure's height (tight_layout lays the axes out
    # under it): its default place is a fraction of the height, which with ten zones' rows put it
    # inside the first axes.
    fig.suptitle(f"{title} at {format_duration(now)}", fontsize=10, y=1 - 0.08 / height, va="top")
    fig.tight_layout()
    return fig
