"""chorus: collective communication and distributed-training simulation, from Python.

The C++ core (chorus._chorus) does the work; this package gives it Python signatures and result objects.
Every malformed input raises chorus.InputError (a ValueError) with ``file``, ``field`` and ``message``
attributes; internal failures raise RuntimeError. See docs/python.md.

    >>> import chorus
    >>> r = chorus.collective("ring:8", "all_gather", "1GiB", bandwidth="50GB/s", latency="500ns")
    >>> r.time_ns, r.bound_ns, r.busbw_GBps
"""

import os as _os

from . import _chorus
from ._chorus import InputError, Topology

__version__ = _chorus.__version__

InputError.__doc__ = """A malformed input (a ValueError): ``file`` (may be ''), ``field`` and ``message`` say where and what."""
Topology.__doc__ = """A network of NPUs, switches and directed links; build one with Topology.load(...)."""

__all__ = ["InputError", "Topology", "CollectiveResult", "SynthResult", "SimResult", "collective", "bound", "synth",
           "sim", "llm", "netopt", "machines", "nccl", "__version__"]


def _input_error(field, message, file=""):
    """An InputError built on the Python side, shaped like the ones the C++ core raises."""
    error = InputError(f"{file + ': ' if file else ''}{field}: {message}")
    error.file, error.field, error.message = file, field, message
    return error


def _text(value):
    """A path-like or string argument as a string ('' for None)."""
    return "" if value is None else _os.fspath(value)


def _units(value, field):
    """A unit value or a list of them (one per dimension) as a list of strings."""
    if value is None:
        return []
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    if isinstance(value, str):
        return value.split(",")
    raise _input_error(field, f"is {value!r}; give a string such as '50GB/s' or a list of them")


def _size(value):
    """A size given as a string ('1GiB') or as a whole number of bytes."""
    if isinstance(value, bool) or value is None:
        raise _input_error("size", f"is {value!r}; give a string such as '1GiB' or a number of bytes")
    if isinstance(value, int):
        return f"{value}B"
    return str(value)


def _load_topology(source=None, bandwidth=None, latency=None, network=None):
    """Load a topology.

    ``source`` is a generator spec ('torus2d:16x16', 'ring:8', 'dgx:4x8', ...), an edge-list file, or an
    ASTRA-sim network YAML (.yml/.yaml; it sets its own bandwidth and latency). ``bandwidth`` and ``latency``
    are one value ('50GB/s', '500ns') or a list / comma string with one per dimension.
    """
    source = _text(source)
    network = _text(network)
    if source.endswith((".yml", ".yaml")) and not network:
        source, network = "", source
    if bool(source) == bool(network):
        raise _input_error("topology", "give exactly one of a spec / edge-list file and a network YAML")
    if network and (bandwidth is not None or latency is not None):
        raise _input_error("bandwidth/latency", "not allowed with a network YAML; the file sets them", network)
    return Topology._load(network, source, _units(bandwidth, "bandwidth"), _units(latency, "latency"))


Topology.load = staticmethod(_load_topology)


def _topology(topology, bandwidth, latency, network=None):
    """The Topology a call names: a Topology object as is, else loaded from a spec, file or network YAML."""
    if isinstance(topology, Topology):
        if bandwidth is not None or latency is not None or network is not None:
            raise _input_error("bandwidth/latency", "not allowed with a Topology object; it has its own")
        return topology
    if topology is None and network is None:
        raise _input_error("topology", "missing; give a Topology, a spec such as 'torus2d:16x16' or a file")
    return _load_topology(topology, bandwidth, latency, network)


class _Record:
    """A result whose fields are the keys of a chorus JSON record, readable as attributes."""

    __slots__ = ("_record",)

    def __init__(self, record):
        self._record = record

    def __getattr__(self, name):
        try:
            return self._record[name]
        except KeyError:
            raise AttributeError(f"{type(self).__name__} has no field {name!r}") from None

    def __getitem__(self, key):
        return self._record[key]

    def to_dict(self):
        """The record as a new dict."""
        return dict(self._record)

    def __repr__(self):
        return f"{type(self).__name__}({self._record!r})"

    def __str__(self):
        fields = ", ".join(f"{k}={self._record[k]!r}" for k in ("collective", "topology", "algorithm", "time_ns",
                                                                 "bound_ns", "ratio", "physically_feasible")
                           if k in self._record)
        return f"{type(self).__name__}({fields})"


class CollectiveResult(_Record):
    """One simulated collective: ``time_ns``, ``bound_ns``, ``algbw_GBps``, ``busbw_GBps``, ``ratio``, ...

    ``to_dict()`` has the keys of ``chorus collective --json``.
    """

    __slots__ = ()


class SynthResult(_Record):
    """A synthesized collective: ``time_ns``, ``bound_ns``, ``ratio``, ``transfers``, ``chunks_per_npu``, ...

    ``to_dict()`` has the keys of ``chorus synth --json``; ``msccl_xml()`` and ``verify()`` work on the schedule.
    """

    __slots__ = ("_run",)

    def __init__(self, run):
        super().__init__(run.record())
        self._run = run

    def msccl_xml(self, name="chorus-synth"):
        """The algorithm as MSCCL XML text (raises InputError where MSCCL cannot express it, e.g. via switches)."""
        return self._run.msccl_xml(name)

    def verify(self):
        """Check the schedule (every chunk delivered, no link double-booked, aware-model replay).

        Returns {'verified': bool, 'aware_ns': float, 'verify_error': str or None}.
        """
        return self._run.verify()


def collective(topology=None, collective=None, size=None, *, bandwidth=None, latency=None, network=None,
               algorithm=None, model="unaware", system=None, composition=None, splits=None, active_chunks=1,
               endpoint_delay=None, reduction_bandwidth=None, evaluation="auto", link_stats=None, chunks=None, seed=1,
               priority="auto", npus=None, fail_links=None, fail_npus=None, root=0):
    """Simulate one collective and compare it with its lower bound, as ``chorus collective`` does.

    ``topology``: a Topology, a generator spec ('torus2d:16x16') or an edge-list file (with ``bandwidth`` and
    ``latency``), or give ``network=`` an ASTRA-sim network YAML. ``collective``: all_reduce, reduce_scatter,
    all_gather, all_to_all, broadcast or reduce. ``size``: '1GiB' or bytes (All-Gather: the gathered output).
    ``algorithm``: ring (default), direct, halvingDoubling, doubleBinaryTree, ..., a comma list per dimension, or
    'synth' (synthesize for this topology; then ``chunks``, ``seed``, ``priority``, ``npus``, ``fail_links``,
    ``fail_npus`` and ``root`` apply). ``model``: unaware | aware | flow. ``system``: an ASTRA-sim system JSON
    (compatibility mode). ``splits``: chunks per collective (default: one, except Broadcast and Reduce, which
    are pipelined with the chunk count that minimises the chain's time). ``physically_feasible`` in the result
    is False when the time is below the lower bound (the unaware model ignores contention; use model='flow').
    ``link_stats``: write per-link statistics (aware, flow) to this CSV path.
    Returns a CollectiveResult.
    """
    if _text(algorithm) != "synth":
        # As the CLI refuses them: the built-in algorithms run on all NPUs, rooted at NPU 0, chunked by ``splits``.
        given = [("npus", npus is not None), ("fail_links", fail_links is not None),
                 ("fail_npus", fail_npus is not None), ("chunks", chunks is not None), ("seed", seed != 1),
                 ("priority", priority != "auto"), ("root", root != 0)]
        for field, is_given in given:
            if is_given:
                raise _input_error(field, "applies only with algorithm='synth' (the synthesizer's options)")
    topo = _topology(topology, bandwidth, latency, network)
    record = _chorus._collective(topo, str(collective), _size(size), model, _text(system), _text(algorithm),
                                 _text(composition), splits, active_chunks, _text(endpoint_delay),
                                 _text(reduction_bandwidth), evaluation, _text(link_stats), chunks, seed, priority,
                                 list(npus or ()), [tuple(link) for link in fail_links or ()], list(fail_npus or ()),
                                 root)
    return CollectiveResult(record)


def bound(topology=None, collective=None, size=None, *, bandwidth=None, latency=None, network=None, sinks="auto",
          root=0, information_bound="auto"):
    """Lower bounds on a collective's time on a topology, as ``chorus bound --json`` prints them (a dict).

    ``sinks``: auto | all | one | brute; ``information_bound`` (All-Reduce): auto (up to 1024 NPUs) | on | off.
    """
    topo = _topology(topology, bandwidth, latency, network)
    return _chorus._bound(topo, str(collective), _size(size), sinks, root, information_bound)


def machines():
    """The device and machine presets every model of chorus uses, as ``chorus machines --json`` prints them: a dict
    with ``devices`` and ``machines``, each a list of dicts (FLOP/s, B/s, GiB) with their ``sources``."""
    return _chorus.machines()


def nccl(machine, collective, size, *, nodes=1, explain=False):
    """One collective as NCCL (RCCL on AMD) runs it on ``machine`` (a preset such as ``"dgx-h100"``, a calibrated
    machine JSON or an NCCL topology dump), by the library's own cost model (docs/nccl.md): a dict with
    ``nccl_algorithm``, ``nccl_protocol``, ``channels``, ``time_ns``, ``algbw_GBps`` and ``busbw_GBps`` (nccl-tests'
    definitions); ``explain=True`` adds ``candidates``, every algorithm and protocol with its time or why it is off.
    ``size`` is bytes or a string such as ``"64MiB"``."""
    return _chorus.nccl(machine, collective, size, nodes=nodes, explain=explain)


def synth(topology=None, collective=None, size=None, *, bandwidth=None, latency=None, network=None, chunks=None,
          seed=1, priority="auto", npus=None, fail_links=None, fail_npus=None, root=0):
    """Synthesize a topology-aware collective algorithm, as ``chorus synth`` does; returns a SynthResult.

    ``chunks``: chunks per NPU (None: chorus chooses); ``priority``: auto | unique | fresh | scarce | random;
    ``npus``: the NPUs taking part (a list of ids); ``fail_links``: [(a, b), ...]; ``fail_npus``: [ids];
    ``root``: the Broadcast / Reduce root.
    """
    topo = _topology(topology, bandwidth, latency, network)
    run = _chorus._synth(topo, str(collective), _size(size), chunks, seed, priority, list(npus or ()),
                         [tuple(link) for link in fail_links or ()], list(fail_npus or ()), root)
    return SynthResult(run)


def _value(text):
    """A CSV cell as int, float, None (empty) or the string itself."""
    if text == "":
        return None
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            pass
    return text


def _read_csv(path):
    """A CSV file as a list of dicts with numbers converted; [] when the file does not exist."""
    import csv  # here, not at the top: `import chorus` stays fast

    if not _os.path.exists(path):
        return []
    with open(path, newline="") as f:
        return [{k: _value(v) for k, v in row.items()} for row in csv.DictReader(f)]


class SimResult:
    """A workload run: ``summary`` (summary.json as a dict), ``collectives`` (the rows of collectives.csv),
    ``links`` (the rows of links.csv; aware and flow models), ``out`` (the report directory, or None)."""

    __slots__ = ("summary", "collectives", "links", "out")

    def __init__(self, summary, collectives, links, out):
        self.summary, self.collectives, self.links, self.out = summary, collectives, links, out

    @property
    def finish_ns(self):
        """The simulated time of the whole run in ns."""
        return self.summary["finish_ns"]

    def __repr__(self):
        return f"SimResult(finish_ns={self.finish_ns!r}, collectives={len(self.collectives)})"


def sim(workload, network=None, system=None, *, topology=None, bandwidth=None, latency=None, memory=None,
        comm_groups=None, model="unaware", out=None, resource_limits=True, contention=False, timeline=True,
        bounds=True, injection_scale=1.0):
    """Simulate Chakra execution traces end to end, as ``chorus sim`` does; returns a SimResult.

    ``workload``: a trace prefix (PREFIX.<rank>.et) or a directory of rank files. ``network``: an ASTRA-sim
    network YAML or a Topology; or ``topology=`` a spec with ``bandwidth``/``latency``. ``system``: ASTRA-sim system
    JSON; ``memory``: remote-memory JSON; ``comm_groups``: communicator groups JSON. ``out``: also keep the report
    files (summary.json, collectives.csv, timeline.json, links.csv) in this directory.
    """
    if isinstance(network, Topology):
        topo = _topology(network, bandwidth, latency)
    else:
        topo = _topology(topology, bandwidth, latency, network)

    def run(directory, keep_timeline):
        summary = _chorus._sim(topo, _text(workload), _text(system), _text(memory), _text(comm_groups), model,
                               directory, resource_limits, contention, keep_timeline, bounds, float(injection_scale))
        return SimResult(summary, _read_csv(_os.path.join(directory, "collectives.csv")),
                         _read_csv(_os.path.join(directory, "links.csv")), None)

    if out is not None:
        result = run(_text(out), timeline)
        result.out = _text(out)
        return result
    import tempfile  # here, not at the top: `import chorus` stays fast

    with tempfile.TemporaryDirectory(prefix="chorus-sim-") as directory:
        return run(directory, False)


from . import llm, netopt  # noqa: E402  (submodules use the names above)
