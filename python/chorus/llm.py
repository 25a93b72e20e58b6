"""chorus.llm: the LLM training planner (Calculon's model / system / execution JSON files); docs/llm.md."""

import os as _os

from . import _chorus


def run(model, system, exec, *, calculon_recompute_bug=False, engine="planner"):
    """Time and memory of one execution, as ``chorus llm run --json`` prints them (a dict, Calculon's keys,
    plus 'execution'). ``system``: a preset name or a system JSON. ``engine="sim"``: the job generated as traces
    and simulated on the system's network tiers, as ``chorus llm run --engine sim --json`` (adds 'engine',
    'sim_finish_ns', 'planner_total_time', 'components', ...; docs/llm.md)."""
    return _chorus._llm_run(_os.fspath(model), _os.fspath(system), _os.fspath(exec), calculon_recompute_bug, engine)


class SearchResult(list):
    """The best configurations, best first: a list of records {'execution': {...}, 'stats': {...}}.

    The counts of ``chorus llm search --json`` are attributes: evaluated, fully_timed, valid, pruned, seconds,
    threads."""

    def __init__(self, record):
        super().__init__(record["top"])
        for key in ("evaluated", "fully_timed", "valid", "pruned", "seconds", "threads"):
            setattr(self, key, record[key])


def search(model, system, gpus, *, max_batch=None, top=10, threads=0, datatype="float16", prune=True):
    """Search execution strategies (Calculon's llm-optimal-execution space) on ``gpus`` processors.

    ``max_batch``: the largest global batch (the largest multiple of DP up to it is used; default: ``gpus``).
    ``threads``: worker threads (0: all cores). Returns a SearchResult (a list of records, best first).
    """
    record = _chorus._llm_search(_os.fspath(model), _os.fspath(system), int(gpus),
                                 int(gpus if max_batch is None else max_batch), int(top), int(threads), datatype,
                                 bool(prune))
    return SearchResult(record)


def validate(system=None):
    """Compare the planner with Korthikanti et al. 2022 (Table 5, Fig. 1, Fig. 7), as ``chorus llm validate --json``
    prints it (a dict). ``system``: a system JSON (default: the built-in A100-80GB preset)."""
    return _chorus._llm_validate("" if system is None else _os.fspath(system))
