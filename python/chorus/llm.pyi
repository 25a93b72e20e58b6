# Type stubs of chorus.llm.
import os
from typing import Any, Optional, Union

PathLike = Union[str, os.PathLike]

class SearchResult(list[dict[str, Any]]):
    evaluated: int
    fully_timed: int
    valid: int
    pruned: int
    seconds: float
    threads: int

def run(model: PathLike, system: PathLike, exec: PathLike, *, calculon_recompute_bug: bool = ...,
        engine: str = ...) -> dict[str, Any]: ...
def search(model: PathLike, system: PathLike, gpus: int, *, max_batch: Optional[int] = ..., top: int = ...,
           threads: int = ..., datatype: str = ..., prune: bool = ...) -> SearchResult: ...
def validate(system: Optional[PathLike] = ...) -> dict[str, Any]: ...
