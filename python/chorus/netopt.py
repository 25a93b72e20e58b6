"""chorus.netopt: the network optimizer on LIBRA's input files (docs/netopt.md)."""

import os as _os

from . import _chorus


def _list(value):
    """None, one string or a list of strings as a list."""
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


def _units(value):
    """None, one unit string or a list of them as one comma-separated string ('' for None)."""
    if value is None:
        return ""
    return value if isinstance(value, str) else ",".join(str(v) for v in value)


def optimize(network, cost, workload, comm, *, budget=None, constraints=None, objective="time", time_target=None,
             min_bw=None, max_bw=None, latency=None, loop="no-overlap", block_factors=False, cross_check=False,
             splits=16):
    """The per-dimension bandwidth that minimises the step time (or time-x-cost, or cost under ``time_target``).

    ``network``, ``cost``, ``workload``, ``comm``: LIBRA's network YAML, cost YAML, workload text and communicator
    YAML. ``budget``: 'total-bw=500GB/s' or 'dollars=2.5e6' (or a list of them); ``constraints``: ['B2+B3=200'];
    ``min_bw`` / ``max_bw`` / ``latency``: one value or one per dimension. Returns the record of
    ``chorus netopt --json`` (a dict: bandwidth_GBps, time_ms, comm_ms, cost, equal_split, ...).
    """
    return _chorus._netopt(_os.fspath(network), _os.fspath(cost), _os.fspath(workload), _os.fspath(comm),
                           _list(budget), _list(constraints), objective, _units(time_target), _units(min_bw),
                           _units(max_bw), _units(latency), loop, bool(block_factors), bool(cross_check), int(splits))
