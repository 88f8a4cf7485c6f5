"""Cluster Playground: rehearse how Kubernetes handles failing nodes, drains and priority."""

__version__ = "0.1.0"
