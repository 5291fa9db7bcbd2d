"""Excel workbooks dropped on the window: attached as text, read as the CSV of their sheets, planned
for like any table or text file, and a damaged one refused with a message that says what to do.
Workbooks are real .xlsx files written with openpyxl in each test."""

from __future__ import annotations

import datetime
import zipfile
from pathlib import Path

import pytest
from openpyxl import Workbook

from jarvis_desktop.media import MediaError, check_attachment, read_text_file
from jarvis_desktop.sheets import check_workbook
from jarvis_desktop.pipeline.executor import resolve_args
from jarvis_desktop.pipeline.plan import Task
from jarvis_desktop.planning.offline import OfflinePlanner


def workbook(path: Path) -> Path:
    wb = Workbook()
    sales = wb.active
    sales.title = "Sales"
    sales.append(["region", "units", "price", "shipped"])
    sales.append(["North", 12, 9.5, datetime.datetime(2026, 3, 1)])
    sales.append(["South", 7.0, 11.25, None])
    sales.append([])  # an empty row in the middle of a sheet is not data
    sales.append(["East", 3, 8, datetime.datetime(2026, 3, 2, 14, 30)])
    notes = wb.create_sheet("Notes")
    notes.append(["Prices, in euros"])
    wb.save(path)
    return path


def test_a_workbook_is_attached_as_text_and_read_as_the_csv_of_its_sheets(tmp_path):
    att = check_attachment(workbook(tmp_path / "sales.xlsx"))
    assert att.kind == "text"
    assert read_text_file(att.path) == (
        "Sheet: Sales\n"
        "region,units,price,shipped\n"
        "North,12,9.5,2026-03-01\n"
        "South,7,11.25\n"
        "East,3,8,2026-03-02 14:30:00\n"
        "\n"
        "Sheet: Notes\n"
        '"Prices, in euros"\n'
    )


def test_a_text_step_on_a_workbook_gets_its_rows_not_its_bytes(tmp_path):
    path = str(workbook(tmp_path / "sales.xlsx"))
    task = Task(task="summarization", id=0, dep=[-1], args={"text": path})
    text = resolve_args(task, {}, {path})["text"]
    assert "North,12,9.5,2026-03-01" in text and "PK" not in text


def test_a_renamed_or_damaged_workbook_is_refused_with_what_to_do(tmp_path):
    renamed = tmp_path / "renamed.xlsx"
    renamed.write_text("region,units\nNorth,12\n")  # a CSV saved under the wrong name
    with pytest.raises(MediaError, match=r"renamed\.xlsx: not an Excel workbook.*export it as CSV"):
        check_attachment(renamed)
    damaged = tmp_path / "damaged.xlsx"
    with zipfile.ZipFile(damaged, "w") as z:  # a zip archive, but no workbook inside
        z.writestr("hello.txt", "hi")
    att = check_attachment(damaged)
    with pytest.raises(MediaError, match=r"damaged\.xlsx: not a readable Excel workbook"):
        read_text_file(att.path)
    with pytest.raises(MediaError, match=r"damaged\.xlsx: not a readable Excel workbook"):
        check_workbook(att.path, open_it=True)  # the window's check opens it without reading its cells


@pytest.mark.parametrize("request_text, task", [
    ("Summarize this spreadsheet for me", "summarization"),
    ("Which of the customers in the attached spreadsheet are likely to cancel?", "tabular-classification"),
])
def test_the_planner_reads_a_dropped_workbook(tmp_path, request_text, task):
    att = check_attachment(workbook(tmp_path / "customers.xlsx"))
    check = OfflinePlanner(use_embeddings=False).plan(request_text, [att])
    assert check.ok and check.plan, check.errors
    assert [t.task for t in check.plan.tasks] == [task]
    assert str(att.path) in check.plan.tasks[0].args.values()


def test_reading_a_huge_workbook_stops_at_the_cell_limit(tmp_path):
    from jarvis_desktop.sheets import read_sheets

    sheets = read_sheets(workbook(tmp_path / "sales.xlsx"), max_cells=6)
    assert [s.title for s in sheets] == ["Sales"]  # the second sheet is never read
    assert sheets[0].rows == [["region", "units", "price", "shipped"], ["North", "12", "9.5", "2026-03-01"]]
