"""The one compiled part: the scheduler's loop over runs of equivalent pods
(playground/engine/scheduler/_placement.c, see equivalence.py). Optional: without a C compiler the
package installs without it and schedules every pod with the Python cycle, to the same result."""

from setuptools import Extension, setup

setup(ext_modules=[Extension(
    "playground.engine.scheduler._placement",
    sources=["playground/engine/scheduler/_placement.c"],
    # No fused multiply-add: a*b+c rounds twice, as in Python (PodTopologySpread's float scores).
    extra_compile_args=["-O2", "-ffp-contract=off", "-fno-fast-math"],
    optional=True,
)])
