"""Type hints of gpubench._core, the extension module (python/src/module.cpp)."""

from typing import Callable, Dict, List, Optional, Tuple, Union

version: str
git_sha: str
have_cuda: bool
have_nvtx: bool
callable_op: str

def run_program(args: List[str]) -> Tuple[int, str, str]: ...
def measure_callable(function: Callable[[], object], name: str, device: str, stream: int, ordinal: int, size: int,
                     dtype: str, timing: str, settings: Dict[str, Union[bool, int, float, str]], range_name: str,
                     check: Optional[Callable[[], Tuple[bool, float, float, int, str]]], argv: List[str]) -> str: ...
def setting_flags() -> List[Tuple[str, str, bool, bool]]: ...
def render_report(documents: List[str], format: str) -> str: ...
def speedup_summary(documents: List[str], format: str = "console") -> str: ...
