"""Spreadsheets (.xlsx/.xlsm) as CSV text: the form every text step and the table classifier read.

People keep tables in Excel far more often than in CSV; dropped on the window, a workbook used to
be refused as an unknown file type. It is read here with openpyxl (values as last calculated,
not formulas), one sheet after another, and from then on is text like any other.
"""

from __future__ import annotations

import csv
import datetime
import io
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

from .media import MediaError


@dataclass(frozen=True)
class Sheet:
    """One worksheet's non-empty rows, cells as text."""

    title: str
    rows: list[list[str]]


def check_workbook(path: str | Path, open_it: bool = False) -> None:
    """At attach time: an .xlsx file is a zip archive, and anything else is not one (a CSV or an
    old binary .xls renamed to .xlsx). ``open_it``: also open it as a workbook (its parts, not its
    cells: a damaged one is refused without reading every sheet, which the request does later)."""
    p = Path(path)
    if not zipfile.is_zipfile(p):
        raise MediaError(f"{p.name}: not an Excel workbook (the file is not an .xlsx archive). "
                         "Save it again from your spreadsheet app, or export it as CSV.")
    if open_it:
        _open(p).close()


def _open(p: Path):
    """The workbook opened read-only (values as last calculated), or a MediaError saying what to do."""
    from openpyxl import load_workbook

    try:
        return load_workbook(p, read_only=True, data_only=True)
    except FileNotFoundError:
        raise MediaError(f"{p.name}: file not found ({p}).") from None
    except Exception as e:  # openpyxl raises zip, XML and key errors for a damaged file
        raise MediaError(f"{p.name}: not a readable Excel workbook ({type(e).__name__}). "
                         "Save it again from your spreadsheet app, or export it as CSV.") from None


def read_sheets(path: str | Path, max_cells: int = 200_000) -> list[Sheet]:
    """The workbook's sheets in order, each with its non-empty rows (trailing empty cells dropped);
    reading stops after ``max_cells`` cells, so a huge workbook cannot stall the request."""
    wb = _open(Path(path))
    sheets: list[Sheet] = []
    left = max_cells
    try:
        for ws in wb.worksheets:
            rows = []
            for row in _rows(ws):
                rows.append(row)
                left -= len(row)
                if left <= 0:
                    break
            sheets.append(Sheet(ws.title, rows))
            if left <= 0:
                break
    finally:
        wb.close()
    return sheets


def _rows(ws) -> Iterator[list[str]]:
    for values in ws.iter_rows(values_only=True):
        cells = [_cell_text(v) for v in values]
        while cells and not cells[-1]:
            cells.pop()
        if cells:
            yield cells


def _cell_text(v) -> str:
    """A cell as a person reads it: 3 not 3.0, a date without a midnight time."""
    if v is None:
        return ""
    if isinstance(v, float) and v.is_integer():
        return str(int(v))
    if isinstance(v, datetime.datetime):
        return v.date().isoformat() if v.time() == datetime.time(0) else v.isoformat(sep=" ")
    if isinstance(v, (datetime.date, datetime.time)):
        return v.isoformat()
    return str(v)


def sheets_to_csv(sheets: list[Sheet]) -> str:
    """CSV text; with several sheets, each starts after a blank line and a line naming it."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    for i, sheet in enumerate(sheets):
        if len(sheets) > 1:
            out.write(("\n" if i else "") + f"Sheet: {sheet.title}\n")
        writer.writerows(sheet.rows)
    return out.getvalue()
