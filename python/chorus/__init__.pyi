# Type stubs of the chorus package (python/chorus/__init__.py and the _chorus extension).
import os
from typing import Any, Iterable, Optional, Sequence, Tuple, Union

from . import llm as llm
from . import netopt as netopt

__version__: str

PathLike = Union[str, os.PathLike]
Units = Union[str, Sequence[str], None]
Size = Union[str, int]

class InputError(ValueError):
    file: str
    field: str
    message: str

class Topology:
    @staticmethod
    def load(source: Optional[PathLike] = ..., bandwidth: Units = ..., latency: Units = ...,
             network: Optional[PathLike] = ...) -> Topology: ...
    @property
    def name(self) -> str: ...
    @property
    def npu_count(self) -> int: ...
    @property
    def node_count(self) -> int: ...
    @property
    def link_count(self) -> int: ...

class CollectiveResult:
    time_ns: float
    bound_ns: Optional[float]
    algbw_GBps: float
    busbw_GBps: float
    ratio: Optional[float]
    physically_feasible: bool
    def __getattr__(self, name: str) -> Any: ...
    def __getitem__(self, key: str) -> Any: ...
    def to_dict(self) -> dict[str, Any]: ...

class SynthResult:
    time_ns: float
    bound_ns: float
    ratio: float
    transfers: int
    chunks_per_npu: int
    physically_feasible: bool
    def __getattr__(self, name: str) -> Any: ...
    def __getitem__(self, key: str) -> Any: ...
    def to_dict(self) -> dict[str, Any]: ...
    def msccl_xml(self, name: str = ...) -> str: ...
    def verify(self) -> dict[str, Any]: ...

class SimResult:
    summary: dict[str, Any]
    collectives: list[dict[str, Any]]
    links: list[dict[str, Any]]
    out: Optional[str]
    @property
    def finish_ns(self) -> float: ...

TopologyArg = Union[Topology, PathLike, None]

def collective(topology: TopologyArg = ..., collective: Optional[str] = ..., size: Optional[Size] = ..., *,
               bandwidth: Units = ..., latency: Units = ..., network: Optional[PathLike] = ...,
               algorithm: Optional[str] = ..., model: str = ..., system: Optional[PathLike] = ...,
               composition: Optional[str] = ..., splits: Optional[int] = ..., active_chunks: int = ...,
               endpoint_delay: Optional[str] = ..., reduction_bandwidth: Optional[str] = ..., evaluation: str = ...,
               link_stats: Optional[PathLike] = ..., chunks: Optional[int] = ..., seed: int = ..., priority: str = ...,
               npus: Optional[Iterable[int]] = ..., fail_links: Optional[Iterable[Tuple[int, int]]] = ...,
               fail_npus: Optional[Iterable[int]] = ..., root: int = ...) -> CollectiveResult: ...
def bound(topology: TopologyArg = ..., collective: Optional[str] = ..., size: Optional[Size] = ..., *,
          bandwidth: Units = ..., latency: Units = ..., network: Optional[PathLike] = ..., sinks: str = ...,
          root: int = ..., information_bound: str = ...) -> dict[str, Any]: ...
def machines() -> dict[str, list[dict[str, Any]]]: ...
def nccl(machine: str, collective: str, size: int | str, *, nodes: int = 1,
         explain: bool = False) -> dict[str, Any]: ...
def synth(topology: TopologyArg = ..., collective: Optional[str] = ..., size: Optional[Size] = ..., *,
          bandwidth: Units = ..., latency: Units = ..., network: Optional[PathLike] = ..., chunks: Optional[int] = ...,
          seed: int = ..., priority: str = ..., npus: Optional[Iterable[int]] = ...,
          fail_links: Optional[Iterable[Tuple[int, int]]] = ..., fail_npus: Optional[Iterable[int]] = ...,
          root: int = ...) -> SynthResult: ...
def sim(workload: PathLike, network: Union[Topology, PathLike, None] = ..., system: Optional[PathLike] = ..., *,
        topology: TopologyArg = ..., bandwidth: Units = ..., latency: Units = ..., memory: Optional[PathLike] = ...,
        comm_groups: Optional[PathLike] = ..., model: str = ..., out: Optional[PathLike] = ...,
        resource_limits: bool = ..., contention: bool = ..., timeline: bool = ..., bounds: bool = ...,
        injection_scale: float = ...) -> SimResult: ...
