"""The compiled parts, both optional: without a C compiler (or libyaml's headers) the package installs
without them and does the same work in Python, to the same result, only slower at size.

- the scheduler's loop over runs of equivalent pods (playground/engine/scheduler/_placement.c, see
  equivalence.py);
- copies of one slotted object with a few fields changed, in one call (playground/engine/_copies.c, see
  copies.py): a ReplicaSet's batch of pods and their queue entries;
- the per-pod loops of a run of equivalent pods (playground/engine/_binds.c, see binds.py): taken
  from the scheduling queue, the store's accounting and the kubelets' admission of its binds, its
  containers' starts;
- the builder of YAML documents from libyaml's parse events (playground/manifests/_yamlbuild.c, see
  yamlload.py), linked with the system's libyaml (Debian: libyaml-dev).
"""

from setuptools import Extension, setup

setup(ext_modules=[
    Extension(
        "playground.engine.scheduler._placement",
        sources=["playground/engine/scheduler/_placement.c"],
        # No fused multiply-add: a*b+c rounds twice, as in Python (PodTopologySpread's float scores).
        extra_compile_args=["-O2", "-ffp-contract=off", "-fno-fast-math"],
        optional=True,
    ),
    Extension(
        "playground.engine._copies",
        sources=["playground/engine/_copies.c"],
        extra_compile_args=["-O2"],
        optional=True,
    ),
    Extension(
        "playground.engine._binds",
        sources=["playground/engine/_binds.c"],
        extra_compile_args=["-O2"],
        optional=True,
    ),
    Extension(
        "playground.manifests._yamlbuild",
        sources=["playground/manifests/_yamlbuild.c"],
        libraries=["yaml"],
        extra_compile_args=["-O2"],
        optional=True,
    ),
])
