# Type stubs of chorus.netopt.
import os
from typing import Any, Optional, Sequence, Union

PathLike = Union[str, os.PathLike]
Units = Union[str, Sequence[str], None]

def optimize(network: PathLike, cost: PathLike, workload: PathLike, comm: PathLike, *,
             budget: Union[str, Sequence[str], None] = ..., constraints: Optional[Sequence[str]] = ...,
             objective: str = ..., time_target: Optional[str] = ..., min_bw: Units = ..., max_bw: Units = ...,
             latency: Units = ..., loop: str = ..., block_factors: bool = ..., cross_check: bool = ...,
             splits: int = ...) -> dict[str, Any]: ...
