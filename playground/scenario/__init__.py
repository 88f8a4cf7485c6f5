"""Scenario files: schema, loading with clear errors, atomic saving."""

from .loader import Problem, ScenarioError, dump_scenario, load_scenario, parse_scenario, save_scenario
from .schema import Scenario

__all__ = ["Problem", "Scenario", "ScenarioError", "dump_scenario", "load_scenario", "parse_scenario", "save_scenario"]
