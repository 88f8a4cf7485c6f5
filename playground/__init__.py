"""Cluster Playground: rehearse how Kubernetes handles failing nodes, drains and priority."""

import os

# numpy's OpenBLAS starts a pool of threads when numpy is imported, one per core, which spin for a
# while at the start: importing numpy took 0.14-0.20 s of CPU with it and 0.08-0.09 s without on this
# 2-core machine. Nothing here calls BLAS (no matrix products: the scheduler's columns are
# element-wise operations and reductions), so the pool is only that cost. A value the user set stays.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

__version__ = "0.1.0"
