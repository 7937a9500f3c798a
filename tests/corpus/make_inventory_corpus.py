"""Write the malformed and unusual inventories of tests/corpus/inventory/.

    python tests/corpus/make_inventory_corpus.py

Each file is a small inventory with one defect (or one unusual but valid trait); what the tool
must do with each is in tests/corpus/inventory/cases.yaml, which tests/test_inventory_corpus.py
runs. The files are committed; this script documents how each was made and remakes them.
"""

from __future__ import annotations

import codecs
import json
from decimal import Decimal
from pathlib import Path

import openpyxl
import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq

OUT = Path(__file__).resolve().parent / "inventory"

HEADER = [
    "id",
    "kind",
    "model_family",
    "params_b",
    "monthly_tokens_b",
    "serving",
    "ttft_slo_ms",
    "features",
    "needed_in_weeks",
    "pinned_accelerator",
    "team",
]
SPACED_HEADER = [
    "ID",
    "Kind",
    "Model Family",
    "Params B",
    "Monthly Tokens B",
    "Serving",
    "TTFT SLO ms",
    "Features",
    "Needed In Weeks",
    "Pinned Accelerator",
    "Team",
]
"""The header as a person types it: capitals and spaces."""
ROWS = [
    ["chat-70b", "inference", "llama", "70", "20", "online", "250", "", "", "h100", "apps"],
    ["pretrain-8b", "training", "llama", "8", "5", "", "", "flash_attention", "12", "", "research"],
    ["summarize-t5", "inference", "t5", "11", "3", "batch", "", "", "", "", "data"],
]


def csv_text(header: list[str] = HEADER, rows: list[list[str]] = ROWS, newline: str = "\n") -> str:
    return newline.join(",".join(cells) for cells in [header, *rows]) + newline


def with_cell(column: str, value: str, row: int = 0, header: list[str] = HEADER) -> str:
    rows = [list(r) for r in ROWS]
    rows[row][header.index(column)] = value
    return csv_text(header, rows)


def renamed(old: str, new: str) -> str:
    return csv_text([new if name == old else name for name in HEADER])


def records() -> list[dict[str, object]]:
    out = []
    for row in ROWS:
        record: dict[str, object] = {}
        for name, cell in zip(HEADER, row, strict=True):
            if cell == "":
                continue
            number = name in ("params_b", "monthly_tokens_b", "ttft_slo_ms", "needed_in_weeks")
            record[name] = float(cell) if number else cell
        out.append(record)
    return out


def json_text(document: object) -> str:
    return json.dumps(document, indent=2) + "\n"


def yaml_text(items: list[dict[str, object]]) -> str:
    lines = []
    for record in items:
        first = True
        for key, value in record.items():
            lines.append(f"{'- ' if first else '  '}{key}: {value}")
            first = False
    return "\n".join(lines) + "\n"


def json_replaced(old: str, new: str) -> str:
    """The valid JSON inventory with one piece of its text replaced."""
    text = json_text(records())
    assert old in text, old
    return text.replace(old, new)


def yaml_replaced(old: str, new: str) -> str:
    """The valid YAML inventory with one piece of its text replaced."""
    text = yaml_text(records())
    assert old in text, old
    return text.replace(old, new)


def workbook(path: Path, sheets: list[tuple[str, list[list[object]]]], **options: object) -> None:
    book = openpyxl.Workbook()
    first = book.active
    assert first is not None
    for index, (name, rows) in enumerate(sheets):
        sheet = first if index == 0 else book.create_sheet(name)
        sheet.title = name
        for row in rows:
            sheet.append(row)
        if name in options.get("hidden", ()):  # type: ignore[operator]
            sheet.sheet_state = "hidden"
    if "active" in options:
        book.active = options["active"]  # type: ignore[assignment]
    book.save(path)


def typed_rows() -> list[list[object]]:
    """The rows with numbers as numbers (as a spreadsheet keeps them) and blanks as None."""
    numeric = {"params_b", "monthly_tokens_b", "ttft_slo_ms", "needed_in_weeks"}
    return [
        [
            (float(cell) if name in numeric else cell) if cell != "" else None
            for name, cell in zip(HEADER, row, strict=True)
        ]
        for row in ROWS
    ]


def frame() -> pd.DataFrame:
    return pd.DataFrame(typed_rows(), columns=HEADER)


def write_text_files() -> None:
    huge = "1" + "0" * 400
    big_note = "x " * 100_000  # 200 KB, beyond the csv module's default 128 KB cell limit
    texts = {
        # CSV: valid but unusual
        "c01_valid.csv": csv_text(),
        "c03_valid_crlf.csv": csv_text(newline="\r\n"),
        "c05_header_spaces_caps.csv": csv_text(SPACED_HEADER),
        "c06_header_hyphens.csv": csv_text(
            [name.replace("_", "-") if name != "id" else name for name in HEADER]
        ),
        "c07_header_camel_case.csv": csv_text(
            [
                "id",
                "kind",
                "modelFamily",
                "paramsB",
                "monthlyTokensB",
                "serving",
                "ttftSloMs",
                "features",
                "neededInWeeks",
                "pinnedAccelerator",
                "team",
            ]
        ),
        "c08_big_cell.csv": csv_text([*HEADER, "notes"], [[*r, f'"{big_note}"'] for r in ROWS]),
        "c09_multiline_note.csv": csv_text(
            [*HEADER, "notes"], [[*r, '"first line\nsecond line"'] for r in ROWS]
        ),
        # CSV: structure
        "c10_unterminated_quote.csv": with_cell("team", '"apps', row=1),
        "c11_quote_swallows_rows.csv": csv_text(
            [*HEADER, "notes"],
            [ROWS[0] + ['"starts here'], ROWS[1] + ["x"], ROWS[2] + ['ends here"']],
        ),
        "c12_text_after_quote.csv": with_cell("team", '"apps"extra'),
        # CSV: headers
        "c13_typo_needed_in_week.csv": renamed("needed_in_weeks", "needed_in_week"),
        "c14_singular_feature.csv": renamed("features", "feature"),
        "c15_unit_missing_ttft_slo.csv": renamed("ttft_slo_ms", "ttft_slo"),
        "c16_prefix_pinned.csv": renamed("pinned_accelerator", "pinned"),
        "c17_swapped_letters_knid.csv": renamed("kind", "knid"),
        "c18_comment_line.csv": "# exported from the capacity sheet 2026-11-30\n" + csv_text(),
        "c19_title_rows.csv": "Inventory,Q3 2026\n\n" + csv_text(),
        # CSV: numbers
        "c22_params_1e308.csv": with_cell("params_b", "1e308"),
        "c23_params_inf.csv": with_cell("params_b", "inf"),
        "c24_params_nan.csv": with_cell("params_b", "NaN"),
        "c25_tokens_1e12.csv": with_cell("monthly_tokens_b", "1e12"),
        "c26_tokens_huge_integer.csv": with_cell("monthly_tokens_b", huge),
        "c27_negative_slo.csv": with_cell("ttft_slo_ms", "-250"),
        "c39_needed_in_weeks_too_far.csv": with_cell("needed_in_weeks", "1000", row=1),
        # CSV: other rules
        "c28_semicolons.csv": csv_text().replace(",", ";"),
        "c29_ragged_row.csv": csv_text().replace("apps\n", "apps,stray\n"),
        "c30_duplicate_ids.csv": with_cell("id", "chat-70b", row=2),
        "c31_duplicate_column_by_case.csv": csv_text([*HEADER, "ID"], [[*r, "x"] for r in ROWS]),
        "c32_id_with_line_break.csv": with_cell("id", '"chat\n70b"'),
        "c34_empty.csv": "",
        "c35_header_only.csv": ",".join(HEADER) + "\n",
        "c36_bool_word.csv": csv_text([*HEADER, "neuron_ready"], [[*r, "perhaps"] for r in ROWS]),
        "c37_unknown_pin.csv": with_cell("pinned_accelerator", "tpu-v5"),
        "c38_missing_kind_column.csv": csv_text(
            [n for n in HEADER if n != "kind"], [r[:1] + r[2:] for r in ROWS]
        ),
        "c40_header_repeated_mid_file.csv": csv_text() + csv_text(rows=[["late-1", *ROWS[0][1:]]]),
        "c41_null_words.csv": with_cell("ttft_slo_ms", "NULL"),
        "c42_tab_separated.csv": csv_text().replace(",", "\t"),
        "c43_number_with_unit.csv": with_cell("params_b", "70B"),
        "c44_thousands_separator.csv": with_cell("monthly_tokens_b", '"1,500"'),
        # JSON
        "j15_deeply_nested.json": "[" * 100_000 + "]" * 100_000,
        "j01_valid.json": json_text(records()),
        "j02_valid_wrapped.json": json_text({"workloads": records()}),
        "j03_nan_slo.json": json_replaced('"ttft_slo_ms": 250.0', '"ttft_slo_ms": NaN'),
        "j04_infinity_params.json": json_replaced('"params_b": 8.0', '"params_b": Infinity'),
        "j05_duplicate_key.json": json_replaced(
            '"pinned_accelerator": "h100",',
            '"pinned_accelerator": "h100",\n    "pinned_accelerator": "trn2",',
        ),
        "j06_huge_integer.json": json_replaced('"params_b": 11.0', f'"params_b": {huge}'),
        "j07_lone_surrogate.json": json_replaced('"chat-70b"', '"chat-\\ud800"'),
        "j08_trailing_comma.json": json_text(records()).rstrip().rstrip("]").rstrip() + ",\n]\n",
        "j09_record_not_object.json": json_text([*records(), "oops"]),
        "j10_nested_object_cell.json": json_replaced(
            '"params_b": 70.0', '"params_b": {"value": 70}'
        ),
        "j11_bool_params.json": json_replaced('"params_b": 70.0', '"params_b": true'),
        "j12_typo_key.json": json_replaced('"ttft_slo_ms"', '"ttft_slo"'),
        # YAML
        "y01_valid.yaml": yaml_text(records()),
        "y02_octal_like_ids.yaml": yaml_text(
            [{**r, "id": f"00{42 + i}"} for i, r in enumerate(records())]
        ),
        "y03_duplicate_key.yaml": yaml_replaced(
            "  pinned_accelerator: h100\n",
            "  pinned_accelerator: h100\n  pinned_accelerator: trn2\n",
        ),
        "y04_nan.yaml": yaml_replaced("ttft_slo_ms: 250.0", "ttft_slo_ms: .nan"),
        "y05_inf.yaml": yaml_replaced("params_b: 8.0", "params_b: .inf"),
        "y06_bad_indent.yaml": yaml_replaced("  kind: training", "   kind: training"),
        "y07_huge_int.yaml": yaml_replaced("params_b: 11.0", f"params_b: {huge}"),
        "y08_yes_no_words.yaml": yaml_text(
            [{**r, "neuron_ready": "yes" if i == 1 else "no"} for i, r in enumerate(records())]
        ),
        "y09_multi_document.yaml": yaml_text(records()) + "---\n" + yaml_text(records()),
        "y10_typo_key.yaml": yaml_replaced("pinned_accelerator", "pinned_acelerator"),
        "y11_tab_indent.yaml": yaml_replaced("  kind: training", "\tkind: training"),
        "y12_sexagesimal_and_dates.yaml": yaml_text(
            [{**r, "team": "2026-11-30", "id": f"1:{20 + i}"} for i, r in enumerate(records())]
        ),
        "y13_deeply_nested.yaml": "[" * 100_000 + "]" * 100_000,
        "y14_binary_value.yaml": yaml_replaced("id: chat-70b", "id: !!binary aGVsbG8="),
        "y15_python_object_tag.yaml": yaml_replaced(
            "id: chat-70b", "id: !!python/object:os.system x"
        ),
        # other files with an inventory's name
        "x08_not_a_workbook.xlsx": csv_text(),
        "p08_not_parquet.parquet": csv_text(),
    }
    for name, text in texts.items():
        (OUT / name).write_text(text, encoding="utf-8", newline="")
    encoded = {
        "c02_valid_bom.csv": codecs.BOM_UTF8 + csv_text().encode(),
        "c04_valid_utf16_bom.csv": csv_text().encode("utf-16"),
        "c20_utf16_no_bom.csv": csv_text().encode("utf-16-le"),
        "c21_latin1.csv": with_cell("team", "café").encode("latin-1"),
        "c33_nul_bytes.csv": bytes(range(256)) * 4,
        "j13_latin1.json": json_replaced("apps", "café").encode("latin-1"),
        "j14_valid_utf16_bom.json": json_text(records()).encode("utf-16"),
    }
    for name, data in encoded.items():
        (OUT / name).write_bytes(data)


def write_workbooks() -> None:
    good = [HEADER, *typed_rows()]
    workbook(OUT / "x01_valid.xlsx", [("inventory", good)])
    workbook(
        OUT / "x02_hidden_first_sheet.xlsx",
        [("old", [HEADER, ["stale-1", "training", "llama", 8, 1]]), ("inventory", good)],
        hidden=("old",),
        active=1,
    )
    workbook(
        OUT / "x03_readme_first.xlsx",
        [
            ("README", [["How to fill in this workbook"], ["One row per workload."]]),
            ("inventory", good),
        ],
    )
    formula = [list(row) for row in good]
    formula[1][HEADER.index("ttft_slo_ms")] = "=200+50"
    workbook(OUT / "x05_formula_without_saved_value.xlsx", [("inventory", formula)])
    workbook(OUT / "x06_title_rows.xlsx", [("inventory", [["Capacity plan Q3"], [], *good])])
    errors = [list(row) for row in good]
    errors[3][HEADER.index("monthly_tokens_b")] = "#DIV/0!"
    workbook(OUT / "x13_excel_error_value.xlsx", [("inventory", errors)])
    bad = [list(row) for row in good]
    bad[2][HEADER.index("params_b")] = "eight"
    workbook(OUT / "x07_bad_number.xlsx", [("inventory", bad)])
    caps = [
        SPACED_HEADER,
        *typed_rows(),
    ]
    workbook(OUT / "x10_header_caps.xlsx", [("inventory", caps)])
    text_numbers = [
        HEADER,
        *[[str(c) if isinstance(c, float) else c for c in r] for r in typed_rows()],
    ]
    workbook(OUT / "x11_numbers_as_text.xlsx", [("inventory", text_numbers)])


def write_parquet() -> None:
    frame().to_parquet(OUT / "p01_valid.parquet", index=False)
    table = pa.Table.from_pandas(frame(), preserve_index=False)
    decimal = pa.array([Decimal("70"), Decimal("8"), Decimal("11")], pa.decimal128(10, 2))
    table = table.set_column(HEADER.index("params_b"), "params_b", decimal)
    pq.write_table(table, OUT / "p02_decimal_params.parquet")
    lists = frame()
    lists["features"] = [[], ["flash_attention", "lora"], ["moe"]]
    lists.to_parquet(OUT / "p03_list_features.parquet", index=False)
    extra = frame()
    extra["owners"] = [["ana", "bo"], [], ["cy"]]
    extra.to_parquet(OUT / "p04_list_extra_column.parquet", index=False)
    nan = frame()
    nan.loc[1, "params_b"] = float("nan")
    nan.to_parquet(OUT / "p05_nan_params.parquet", index=False)
    inf = frame()
    inf.loc[0, "monthly_tokens_b"] = float("inf")
    inf.to_parquet(OUT / "p06_inf_tokens.parquet", index=False)
    frame().drop(columns=["model_family"]).to_parquet(
        OUT / "p07_missing_column.parquet", index=False
    )
    binary = frame()
    binary["blob"] = [b"\xff\x00", b"ok", b""]
    binary.to_parquet(OUT / "p10_binary_extra_column.parquet", index=False)
    nullable = frame()
    nullable["cost_center"] = pd.array([1042, None, 7], dtype="Int64")
    nullable["started"] = pd.to_datetime(["2026-01-05", None, "2026-03-01"])
    nullable.to_parquet(OUT / "p11_nullable_and_dates.parquet", index=False)
    frame().rename(columns={"monthly_tokens_b": "monthly_token_b"}).to_parquet(
        OUT / "p09_typo_column.parquet", index=False
    )


def main() -> None:
    OUT.mkdir(exist_ok=True)
    write_text_files()
    write_workbooks()
    write_parquet()
    print(f"wrote {len(list(OUT.iterdir()))} files in {OUT}")


if __name__ == "__main__":
    main()
