"""Result records back from their JSON form (`to_dict`): what the gradebook keeps of each submission's report.

Stdlib only, like the records. Fields a newer grader added and an older record lacks take their defaults; fields
this grader does not know are dropped, so a gradebook written by another version still reads.
"""

from __future__ import annotations

import json
import zlib
from typing import Any

from grader import records
from grader.results import CaseResult, Comparison, Mismatch, Report, StageResult, Status, Upstream, to_dict


def _known(cls: type, data: dict[str, Any]) -> dict[str, Any]:
    names = set(records.fields(cls))
    return {k: v for k, v in data.items() if k in names}


def _index(value: Any) -> tuple[int, ...] | None:
    return None if value is None else tuple(int(i) for i in value)


def _mismatch(d: dict[str, Any] | None) -> Mismatch | None:
    return None if d is None else Mismatch(**{**_known(Mismatch, d), "index": _index(d.get("index")) or ()})


def _comparison(d: dict[str, Any]) -> Comparison:
    fields = _known(Comparison, d)
    for key in ("shape_actual", "shape_expected", "max_abs_index", "max_rel_index"):
        if key in fields:
            fields[key] = _index(fields[key])
    fields["worst"] = _mismatch(d.get("worst"))
    fields["first"] = [m for m in map(_mismatch, d.get("first", [])) if m is not None]
    return Comparison(**fields)


def _case(d: dict[str, Any]) -> CaseResult:
    fields = _known(CaseResult, d)
    fields["status"] = Status(d["status"])
    fields["comparisons"] = [_comparison(c) for c in d.get("comparisons", [])]
    return CaseResult(**fields)


def _stage(d: dict[str, Any]) -> StageResult:
    fields = _known(StageResult, d)
    fields["cases"] = [_case(c) for c in d.get("cases", [])]
    fields["upstream"] = Upstream(**_known(Upstream, d["upstream"])) if d.get("upstream") else None
    return StageResult(**fields)


def report_from_dict(d: dict[str, Any]) -> Report:
    """A Report from `to_dict(report)`."""
    return Report(course=d["course"], stages=[_stage(s) for s in d.get("stages", [])])


def pack(report: Report) -> bytes:
    """A report as compressed JSON (what the gradebook stores)."""
    return zlib.compress(json.dumps(to_dict(report), allow_nan=True).encode("utf-8"), 6)


def unpack(blob: bytes) -> Report:
    """A report from `pack`."""
    return report_from_dict(json.loads(zlib.decompress(blob).decode("utf-8")))
