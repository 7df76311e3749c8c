"""Results: the records of a gpubench JSON report, as plain Python objects."""

from __future__ import annotations

import html as _html
import json
import os
from typing import Any, Dict, Iterator, List, Optional, Sequence

from . import _core

Record = Dict[str, Any]


def _format_seconds(seconds: Optional[float]) -> str:
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("us", 1e-6), ("ns", 1e-9)):
        if seconds >= scale:
            return f"{seconds / scale:.4g} {unit}"
    return f"{seconds / 1e-9:.3g} ns"


class Results:
    """The records of one gpubench report (the JSON document the JSON reporter writes).

    ``records`` are the report's ``results``, ``context`` its machine and settings, both as
    plain dicts and lists; ``document`` is the whole report. Indexing and iteration go over
    the records. ``save`` writes the report for ``gpubench compare``, ``report``, ``merge``
    and ``history``; ``to_pandas`` gives one row per record; ``summary`` and ``html`` render
    with gpubench's own reporters.
    """

    def __init__(self, documents: Sequence[str]):
        if not documents:
            raise ValueError("Results needs at least one JSON report")
        self._documents: List[str] = list(documents)
        self.exit_code: int = 0  # the program's, for a run (1: some case failed)
        self.messages: str = ""  # what the program wrote to stderr
        if len(self._documents) == 1:
            self.document: Dict[str, Any] = json.loads(self._documents[0])
        else:
            self.document = json.loads(_core.render_report(self._documents, "json"))

    @classmethod
    def load(cls, path: "os.PathLike[str] | str") -> "Results":
        """Reads a JSON report that gpubench (the program or this package) wrote."""
        with open(path, encoding="utf-8") as file:
            text = file.read()
        _core.render_report([text], "json")  # the reader's checks: ValueError naming what is wrong
        return cls([text])

    @property
    def records(self) -> List[Record]:
        return self.document["results"]

    @property
    def context(self) -> Dict[str, Any]:
        return self.document["context"]

    def __len__(self) -> int:
        return len(self.records)

    def __iter__(self) -> Iterator[Record]:
        return iter(self.records)

    def __getitem__(self, index: int) -> Record:
        return self.records[index]

    @property
    def median(self) -> float:
        """The median seconds per call of the one record (ValueError for several)."""
        return self._single()["statistics"]["median"]

    @property
    def median_ci(self) -> "tuple[float, float]":
        """The median's 95 % confidence interval, in seconds, of the one record."""
        statistics = self._single()["statistics"]
        return statistics["median_ci_low"], statistics["median_ci_high"]

    def _single(self) -> Record:
        if len(self.records) != 1:
            raise ValueError(f"this holds {len(self.records)} records; index one (results[i]['statistics'])")
        return self.records[0]

    def __add__(self, other: "Results") -> "Results":
        return Results(self._documents + other._documents)

    def save(self, path: "os.PathLike[str] | str") -> None:
        """Writes the JSON report (refuses to overwrite an existing file)."""
        path = os.fspath(path)
        text = self._documents[0] if len(self._documents) == 1 else self.render("json")
        with open(path, "x", encoding="utf-8") as file:
            file.write(text)

    def render(self, format: str = "console") -> str:
        """The report in one of gpubench's formats: console, json, csv, markdown or html."""
        return _core.render_report(self._documents, format)

    def html(self, path: "os.PathLike[str] | str | None" = None) -> str:
        """The HTML report (gpubench report --format html); written to ``path`` when given."""
        text = self.render("html")
        if path is not None:
            with open(os.fspath(path), "x", encoding="utf-8") as file:
                file.write(text)
        return text

    def summary(self, format: str = "console") -> str:
        """The CPU-versus-GPU speed-up and crossover table (console, markdown or json)."""
        return _core.speedup_summary(self._documents, format)

    def to_pandas(self) -> Any:
        """One row per record: id, op, backend, device, dtype, size, status and the statistics."""
        try:
            import pandas
        except ImportError as error:
            raise ImportError("Results.to_pandas() needs pandas: pip install pandas "
                              "(records are also plain dicts: Results.records)") from error
        rows = []
        for record in self.records:
            row = {key: record.get(key) for key in ("id", "op", "backend", "device", "dtype", "status", "reason")}
            row["size"] = record["shape"].get("label")
            row["l2"] = record["settings"].get("l2")
            row["batch"] = record["settings"].get("batch")
            for key, value in (record.get("statistics") or {}).items():
                row[key] = value
            host = record.get("host_statistics") or {}
            row["host_median"] = host.get("median")
            row["verified"] = (record.get("verification") or {}).get("passed")
            rows.append(row)
        return pandas.DataFrame(rows)

    def _table_rows(self) -> List[List[str]]:
        rows = []
        for record in self.records:
            statistics = record.get("statistics") or {}
            host = record.get("host_statistics") or {}
            low, high = statistics.get("median_ci_low"), statistics.get("median_ci_high")
            ci = f"{_format_seconds(low)} .. {_format_seconds(high)}" if low is not None else "-"
            rows.append([record["id"], record["status"], _format_seconds(statistics.get("median")), ci,
                         _format_seconds(host.get("median")), str(statistics.get("count", "-"))])
        return rows

    _HEADER = ["case", "status", "median", "median 95% CI", "host median", "samples"]

    def _repr_markdown_(self) -> str:
        lines = ["| " + " | ".join(self._HEADER) + " |", "|" + "---|" * len(self._HEADER)]
        lines += ["| " + " | ".join(row) + " |" for row in self._table_rows()]
        return "\n".join(lines)

    def _repr_html_(self) -> str:
        head = "".join(f"<th>{_html.escape(cell)}</th>" for cell in self._HEADER)
        body = "".join("<tr>" + "".join(f"<td>{_html.escape(cell)}</td>" for cell in row) + "</tr>"
                       for row in self._table_rows())
        return f"<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"

    def __repr__(self) -> str:
        rows = [self._HEADER] + self._table_rows()
        widths = [max(len(row[i]) for row in rows) for i in range(len(self._HEADER))]
        return "\n".join("  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in rows)
