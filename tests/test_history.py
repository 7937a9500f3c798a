"""Planning cycles: saved runs in SQLite and in a real PostgreSQL server, schema migrations,
concurrent saves, history/show/diff, and the change split into inventory and catalog."""

from __future__ import annotations

import json
import multiprocessing
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import pytest
import sqlalchemy as sa

from placement.catalog import read_catalog
from placement.errors import PlacementInputError
from placement.pipeline import plan
from placement.storing import History
from tests.conftest import frame
from tests.test_cli import assert_clean_failure, invoke

ROOT = Path(__file__).resolve().parents[1]
SAMPLE = ROOT / "inputs" / "sample_inventory.csv"
POSTGRES_ENV = "PLACEMENT_TEST_POSTGRES_URL"


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[str]:
    """The URL of a real PostgreSQL server: the one .ci/run started, or one started here."""
    if os.environ.get(POSTGRES_ENV):
        yield os.environ[POSTGRES_ENV]
        return
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import throwaway_postgres
    finally:
        sys.path.pop(0)
    try:
        url, folder = throwaway_postgres.start()
    except throwaway_postgres.Unavailable as err:
        pytest.skip(f"no PostgreSQL server could be started: {err}")
    try:
        yield url
    finally:
        throwaway_postgres.stop(folder)


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """An empty history database of each kind."""
    if request.param == "sqlite":
        return str(tmp_path / "history.sqlite")
    url = str(request.getfixturevalue("postgres_server"))
    _drop_schema(url)
    return url


def _drop_schema(url: str) -> None:
    if not url.startswith("postgresql"):
        for suffix in ("", "-wal", "-shm"):
            Path(url + suffix).unlink(missing_ok=True)
        return
    engine = sa.create_engine(url)
    with engine.begin() as connection:
        connection.execute(sa.text("DROP TABLE IF EXISTS runs"))
        connection.execute(sa.text("DROP TABLE IF EXISTS alembic_version"))
    engine.dispose()


def _one_job(hours: float) -> object:
    return frame(
        [
            {
                "id": "ft",
                "kind": "training",
                "model_family": "llama",
                "params_b": 70,
                "h100_gpu_hours": hours,
            },
            {
                "id": "chat",
                "kind": "inference",
                "model_family": "llama",
                "params_b": 8,
                "monthly_tokens_b": 30,
                "serving": "online",
                "ttft_slo_ms": 500,
            },
        ]
    )


def test_the_schema_is_created_by_its_migrations(db_url: str) -> None:
    history = History(db_url)
    assert history.revision() == history.head() == "0002"
    inspector = sa.inspect(history.engine)
    assert {"runs", "alembic_version"} <= set(inspector.get_table_names())
    assert "risk_json" in {c["name"] for c in inspector.get_columns("runs")}
    History(db_url)  # opening again is a no-op
    assert history.revision() == "0002"


def _downgrade(history: History, revision: str) -> None:
    """Take the schema back to ``revision``, as an earlier placement left it."""
    from alembic import command

    config = history._config()
    with history.engine.connect() as connection:
        config.attributes["connection"] = connection
        command.downgrade(config, revision)
        connection.commit()


def test_a_database_of_the_first_schema_is_upgraded_and_keeps_its_runs(db_url: str) -> None:
    history = History(db_url)
    result = plan(_one_job(2000))
    run_id = history.save(result, "before-risk")
    _downgrade(history, "0001")
    assert history.revision() == "0001"
    columns = {c["name"] for c in sa.inspect(history.engine).get_columns("runs")}
    assert "risk_json" not in columns and "plan_json" in columns
    again = History(db_url)  # opened by this placement: upgraded in place
    assert again.revision() == "0002"
    saved = again.get(run_id)
    assert saved.plan == result.plan and saved.risk is None
    assert again.list()["risk_samples"].isna().all()


def test_a_run_saved_with_its_risk_comes_back_with_it(db_url: str) -> None:
    from placement.uncertainty.risk import risk_with_point_plan

    risk, point = risk_with_point_plan(_one_job(2000), samples=3, seed=4, workers=1)
    history = History(db_url)
    run_id = history.save(point, "with-risk", risk=risk)
    plain = history.save(point, "without")
    saved = history.get(run_id)
    assert saved.risk == risk and saved.plan == point.plan
    assert history.get(plain).risk is None
    listed = history.list().set_index("id")
    assert listed.at[run_id, "risk_samples"] == 3
    assert listed.at[run_id, "risk_pays_probability"] == risk.probability_beats_all_h100
    assert listed.at[run_id, "risk_held_p90_usd"] == risk.base_plan_cost_usd.p90
    assert pd.isna(listed.at[plain, "risk_samples"])


def test_a_saved_run_comes_back_whole(db_url: str) -> None:
    history = History(db_url)
    result = plan(SAMPLE)
    run_id = history.save(result, "2026-Q4")
    saved = history.get(run_id)
    assert saved.plan == result.plan
    assert saved.catalog == result.catalog
    pd.testing.assert_frame_equal(
        saved.inventory.workloads, result.inventory.workloads, check_dtype=False
    )
    assert history.get("2026-Q4").id == run_id  # by cycle label: its latest run
    listed = history.list()
    assert list(listed["id"]) == [run_id] and listed["cycle"][0] == "2026-Q4"


def _save(args: tuple[str, str, int]) -> int:
    url, cycle, hours = args
    result = plan(_one_job(float(hours)))
    return History(url).save(result, cycle)


def test_eight_processes_saving_at_once_lose_nothing(db_url: str) -> None:
    jobs = [(db_url, f"cycle-{i}", 2000 + 1000 * i) for i in range(8)] * 2
    with multiprocessing.get_context("forkserver").Pool(8) as pool:
        ids = pool.map(_save, jobs, chunksize=1)
    assert len(set(ids)) == 16
    listed = History(db_url).list()
    assert sorted(listed["id"]) == sorted(ids)
    assert sorted(listed["cycle"]) == sorted(j[1] for j in jobs)


def _open(url: str) -> str:
    try:
        History(url)
    except PlacementInputError as err:
        return str(err)
    return "ok"


def test_processes_opening_an_empty_database_at_once_all_see_one_schema(db_url: str) -> None:
    """Eight processes make the schema of one empty database at once, ten times over: none
    mistakes the schema another is committing for another application's tables."""
    fork = multiprocessing.get_context("fork")
    for _ in range(10):
        _drop_schema(db_url)
        with fork.Pool(8) as pool:
            assert pool.map(_open, [db_url] * 8) == ["ok"] * 8
        assert History(db_url).revision() == History(db_url).head()


def test_a_catalog_only_change_is_all_the_catalogs(db_url: str) -> None:
    history = History(db_url)
    a = history.save(plan(_one_job(8000)), "A")
    cheaper = read_catalog(None, ["accelerators.h100.on_demand_usd_per_chip_hour=2.5"])
    b = history.save(plan(_one_job(8000), cheaper), "B")
    d = history.diff(a, b)
    assert not d.inventory_changed and d.catalog_changed
    assert d.inventory_effect_usd == 0
    assert d.catalog_effect_usd == d.plans.objective_change_usd != 0


def test_an_inventory_only_change_is_all_the_inventorys(db_url: str) -> None:
    history = History(db_url)
    a = history.save(plan(_one_job(3000)), "A")
    b = history.save(plan(_one_job(30000)), "B")
    d = history.diff(a, b)
    assert d.inventory_changed and not d.catalog_changed
    assert d.catalog_effect_usd == 0
    assert d.inventory_effect_usd == d.plans.objective_change_usd != 0


def test_both_effects_add_up_to_the_change(db_url: str) -> None:
    history = History(db_url)
    a = history.save(plan(_one_job(3000)), "A")
    dearer = read_catalog(None, ["accelerators.h100.on_demand_usd_per_chip_hour=5"])
    b = history.save(plan(_one_job(30000), dearer), "B")
    d = history.diff(a, b)
    assert d.inventory_changed and d.catalog_changed
    assert d.inventory_effect_usd is not None and d.catalog_effect_usd is not None
    assert d.inventory_effect_usd + d.catalog_effect_usd == pytest.approx(
        d.plans.objective_change_usd, abs=0.02
    )
    # The inventory's effect is that of re-solving B's inventory with A's catalog.
    mixed = plan(history.get(b).inventory, history.get(a).catalog).plan.objective_monthly_usd
    assert mixed is not None and d.a.objective is not None
    assert d.inventory_effect_usd == pytest.approx(mixed - d.a.objective, abs=0.01)


def test_the_cli_saves_lists_shows_and_diffs(db_url: str) -> None:
    first = invoke("plan", SAMPLE, "--save", "--cycle", "2026-Q4", "--db", db_url, "--summary")
    assert first.exit_code == 0, first.output
    assert "saved as run 1 (cycle 2026-Q4)" in first.stderr
    second = invoke(
        "plan",
        SAMPLE,
        "--save",
        "--cycle",
        "2027-Q1",
        "--db",
        db_url,
        "--scenario",
        ROOT / "inputs" / "scenarios" / "h100_price_cut.yaml",
        "-q",
    )
    assert second.exit_code == 0, second.output
    listed = json.loads(invoke("history", "--db", db_url, "--format", "json").stdout)
    assert [(r["id"], r["cycle"], r["scenario"]) for r in listed] == [
        (1, "2026-Q4", None),
        (2, "2027-Q1", "h100-price-cut"),
    ]
    shown = json.loads(invoke("show", "2", "--db", db_url, "--format", "json").stdout)
    assert shown["run"]["scenario"] == "h100-price-cut"
    diff = json.loads(
        invoke("diff", "2026-Q4", "2027-Q1", "--db", db_url, "--format", "json").stdout
    )
    assert diff["inventory_effect_usd"] == 0 and diff["catalog_effect_usd"] < 0
    assert diff["moves"] and all(m["to_accelerator"] == "h100" for m in diff["moves"])
    table = invoke("diff", "1", "2", "--db", db_url)
    assert "effect of the catalog" in table.stdout
    runs = invoke("history", "--db", db_url, env={"COLUMNS": "100"}).stdout
    lines = runs.splitlines()
    assert lines[0].startswith("Saved runs of ") and "sample_inventory.csv" in lines[0]
    assert max(map(len, lines)) <= 100
    for run in listed:  # one line each, read across: money in dollars, hashes short
        line = next(line for line in lines if line.split()[:2] == [str(run["id"]), run["cycle"]])
        assert f"${round(run['objective_monthly_usd']):,}" in line
        assert run["catalog_sha256"][:8] in line and run["catalog_sha256"][:9] not in line


def test_risk_save_keeps_the_point_plan_and_its_risk(tmp_path: Path) -> None:
    db, out = str(tmp_path / "h.sqlite"), tmp_path / "risk.json"
    args = ("--samples", "3", "--seed", "2", "--workers", "1", "--db", db)
    done = invoke("risk", SAMPLE, *args, "--save", "--cycle", "2027-Q1", "--format", "json",
                  "-o", out)  # fmt: skip
    assert done.exit_code == 0, done.stderr
    assert "saved as run 1 (cycle 2027-Q1)" in done.stderr
    risk = json.loads(out.read_text())
    assert invoke("plan", SAMPLE, "--save", "--cycle", "2027-Q2", "--db", db, "-q").exit_code == 0
    [first, second] = json.loads(invoke("history", "--db", db, "--format", "json").stdout)
    assert first["risk_samples"] == 3 and second["risk_samples"] is None
    assert first["risk_pays_probability"] == risk["probability_beats_all_h100"]
    assert first["risk_held_p50_usd"] == risk["base_plan_cost_usd"]["p50"]
    assert first["objective_monthly_usd"] == pytest.approx(risk["point_plan_cost_usd"], abs=0.02)
    table = invoke("history", "--db", db, env={"COLUMNS": "100"}).stdout
    assert "pays" in table and f"{100 * risk['probability_beats_all_h100']:.0f}%" in table
    shown = invoke("show", "2027-Q1", "--db", db, env={"COLUMNS": "100"}).stdout
    assert "In 3 sampled futures (seed 2), migrating pays in" in " ".join(shown.split())
    report = tmp_path / "r.md"
    done = invoke("report", "-", "--run", "2027-Q1", "--db", db, "--md", report)
    assert done.exit_code == 0, done.stderr
    assert "## The risk" in report.read_text()
    assert invoke("risk", SAMPLE, *args, "--save").exit_code == 2  # --save needs --cycle


def test_save_needs_a_cycle_and_an_unknown_run_is_a_clear_error(tmp_path: Path) -> None:
    db = str(tmp_path / "h.sqlite")
    result = invoke("plan", SAMPLE, "--save", "--db", db)
    assert result.exit_code == 2 and "--cycle" in result.stderr
    missing = invoke("show", "9", "--db", db, "--format", "json")
    problems = assert_clean_failure(missing, json_errors=True)
    assert "no such run" in problems[0]["message"]


def test_reading_a_database_that_does_not_exist_makes_nothing(tmp_path: Path) -> None:
    """The listing, show, diff and a report of a saved run only read: a --db that names no
    file (in a folder that does not exist either) holds no runs, and neither the file, its
    folder nor a lock file is made."""
    db = tmp_path / "missing" / "folder" / "history.sqlite"
    listed = invoke("history", "--db", db, "--format", "json")
    assert listed.exit_code == 0, listed.output
    assert json.loads(listed.stdout) == []
    for args in (("show", "1"), ("diff", "1", "2")):
        result = invoke(*args, "--db", db)
        assert_clean_failure(result)
        assert "does not exist" in result.stderr and "--save" in result.stderr
    report = invoke("report", "--run", "1", "--db", db, "--html", tmp_path / "r.html")
    assert_clean_failure(report)
    assert list(tmp_path.iterdir()) == []


def test_an_sqlite_url_with_arguments_is_refused_untouched(tmp_path: Path) -> None:
    """The driver ignores arguments it does not know (``?mode=ro`` would open the file for
    writing): refused, and nothing made beside the file."""
    url = f"sqlite:///{tmp_path / 'h.sqlite'}?mode=ro"
    for args in (("history",), ("plan", SAMPLE, "--save", "--cycle", "q1")):
        result = invoke(*args, "--db", url)
        assert_clean_failure(result)
        assert "?mode=ro" in result.stderr and "path alone" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_an_unusable_database_is_a_clear_error(tmp_path: Path) -> None:
    result = invoke("history", "--db", "postgresql+psycopg://nobody@127.0.0.1:1/none")
    assert_clean_failure(result)
    assert "cannot open the database" in result.stderr


def test_a_database_password_is_never_printed(tmp_path: Path) -> None:
    from placement.storing.history import redacted

    url = "postgresql+psycopg://planner:s3cr3t-pw@127.0.0.1:1/placement"
    for args in (["history"], ["history", "--format", "json"], ["show", "1"]):
        result = invoke(*args, "--db", url)
        assert result.exit_code == 2
        assert "s3cr3t-pw" not in result.output and "planner:***@127.0.0.1" in result.output
    assert redacted(url) == "postgresql+psycopg://planner:***@127.0.0.1:1/placement"
    assert redacted("sqlite:////tmp/h.sqlite") == "sqlite:////tmp/h.sqlite"
    assert "pw" not in redacted("not a url://u:pw@host")


def test_a_diff_names_each_catalog_figure_and_what_it_moved_alone(tmp_path: Path) -> None:
    """Two figures changed between cycles: each is listed with its old and new value, and
    its effect on its own is the plan re-solved with that figure alone changed."""
    from tests.test_explain import SOLVER, small_inventory

    history = History(str(tmp_path / "h.sqlite"))
    rows = small_inventory()
    rate = "accelerators.h100.on_demand_usd_per_chip_hour"
    weeks = "platforms.neuron.porting_weeks_per_family"
    changed = [f"{rate}=3.0", f"{weeks}=6"]
    history.save(plan(rows, read_catalog(), SOLVER), "2027-Q1")
    history.save(plan(rows, read_catalog(None, changed), SOLVER), "2027-Q2")
    d = history.diff("2027-Q1", "2027-Q2", SOLVER)
    by_path = {f.path: f for f in d.figures}
    assert set(by_path) == {rate, weeks}
    assert (by_path[rate].old, by_path[rate].new) == (4.0, 3.0)
    base = plan(rows, read_catalog(), SOLVER).plan.objective_monthly_usd
    for path, setting in zip((rate, weeks), changed, strict=True):
        alone = plan(rows, read_catalog(None, [setting]), SOLVER).plan.objective_monthly_usd
        assert by_path[path].effect_usd == pytest.approx(alone - base, abs=0.05)  # type: ignore[operator]
    moved = [abs(w.change_usd) for w in d.workloads]
    assert moved == sorted(moved, reverse=True) and moved[0] > 0
    record = d.record()
    assert {f["path"] for f in record["catalog_figures"]} == {rate, weeks}
    assert record["workloads_cost_moved_most"][0]["workload_id"] == d.workloads[0].workload_id


def test_a_failed_save_loses_no_plan_and_a_piped_scenario_is_stored_whole(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import threading

    from placement.errors import PlacementInputError
    from placement.storing import history as stored

    db = str(tmp_path / "h.sqlite")
    # A scenario from a pipe can be read once: the text saved is the one planned.
    fifo = tmp_path / "scenario.fifo"
    os.mkfifo(fifo)
    text = "name: piped\ncatalog:\n  economics.amortization_months: 24\n"
    writer = threading.Thread(target=fifo.write_text, args=(text,))
    writer.start()
    saved = invoke("plan", SAMPLE, "--save", "--cycle", "q", "--db", db, "--scenario", fifo, "-q")
    writer.join()
    assert saved.exit_code == 0, saved.output
    assert History(db).get("q").scenario_yaml == text

    def refuse(*_: object, **__: object) -> int:
        raise PlacementInputError(["--db: the database is read-only"], title="cannot save")

    monkeypatch.setattr(stored.History, "save", refuse)
    out = tmp_path / "plan.json"
    failed = invoke(
        "plan", SAMPLE, "--save", "--cycle", "q2", "--db", db, "--format", "json", "-o", out
    )
    assert failed.exit_code == 2 and "read-only" in failed.stderr
    assert json.loads(out.read_text())["status"] == "optimal"  # the plan is not lost


def test_a_file_that_is_not_a_history_database_is_refused_untouched(tmp_path: Path) -> None:
    saved = tmp_path / "h.sqlite"
    assert invoke("plan", SAMPLE, "--save", "--cycle", "q", "--db", saved, "-q").exit_code == 0
    truncated = tmp_path / "truncated.sqlite"
    truncated.write_bytes(saved.read_bytes()[:100])
    text = tmp_path / "notes.sqlite"
    text.write_text("not a database\n")
    for path in (truncated, text):
        before = path.read_bytes()
        for args in (["history"], ["plan", SAMPLE, "--save", "--cycle", "q", "--summary"]):
            result = invoke(*args, "--db", path)
            assert_clean_failure(result)
            assert "not a usable placement history database" in result.stderr
        assert path.read_bytes() == before


# A child process that opens (or saves to) a history database with a hook on the statements the
# database runs: ``kill`` sends the signal to itself right after the first statement containing
# ``after``, as a user's kill or Ctrl-C at the worst moment would.
_HOOKED = """
import os, signal, sys
import sqlalchemy as sa
from placement.storing.history import History
from placement.cli.main import main

url, after, kill, mode = sys.argv[1:5]
original = History._engine

def hooked(self):
    engine = original(self)

    @sa.event.listens_for(engine, "after_cursor_execute")
    def _hook(conn, cursor, statement, *_):
        if after in statement:
            os.kill(os.getpid(), getattr(signal, kill))

    return engine

History._engine = hooked
if mode == "open":
    History(url)
else:
    main(["plan", sys.argv[5], "--save", "--cycle", "c1", "--db", url, "-q", "-o", sys.argv[6]])
"""


def _hooked_child(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", _HOOKED, *args], capture_output=True, text=True, timeout=300
    )


def test_a_schema_migration_killed_half_way_leaves_a_database_that_opens(db_url: str) -> None:
    killed = _hooked_child(db_url, "CREATE TABLE runs", "SIGKILL", "open")
    assert killed.returncode == -9, killed.stderr  # killed after the table, before its version
    history = History(db_url)  # the migration runs again, whole
    assert history.revision() == history.head()
    assert history.list().empty
    history.save(plan(_one_job(1000)), "after")
    assert history.list()["cycle"].tolist() == ["after"]


def test_ctrl_c_during_the_save_lets_the_run_land_and_says_so(tmp_path: Path) -> None:
    db, out = str(tmp_path / "h.sqlite"), tmp_path / "plan.json"
    History(db)  # the schema first: the hook below fires on the run's INSERT
    done = _hooked_child(db, "INSERT INTO runs", "SIGINT", "save", str(SAMPLE), str(out))
    assert done.returncode == 130, done.stderr
    assert "saved as run 1 (cycle c1)" in done.stderr and "Interrupted (SIGINT)" in done.stderr
    assert "Traceback" not in done.stderr
    assert History(db).list()["cycle"].tolist() == ["c1"] and out.stat().st_size > 0


@pytest.mark.parametrize(
    ("label", "says"),
    [
        ("x" * 201, "at most 200 characters (this one has 201)"),
        ("2027\x00Q1", "U+0000"),
        ("2027\nQ1", "U+000A"),
        ("   ", "non-empty"),
    ],
)
def test_a_label_no_database_can_store_is_refused_before_the_solve(
    tmp_path: Path, label: str, says: str
) -> None:
    db = tmp_path / "h.sqlite"
    result = invoke("plan", SAMPLE, "--save", "--db", db, "--cycle", label)
    assert_clean_failure(result)
    assert "--cycle" in result.stderr and says in result.stderr
    scenario = tmp_path / "s.yaml"
    scenario.write_text(f"name: {label * 2 if len(label) > 3 else 'ok'}\n", encoding="utf-8")
    if len(label) > 3 and "\x00" not in label and "\n" not in label:
        result = invoke("plan", SAMPLE, "--scenario", scenario)
        assert_clean_failure(result)
        assert "name: a label of at most 200 characters" in result.stderr


@pytest.mark.parametrize(
    ("url", "secret", "shown"),
    [
        ("postgresql+psycopg://u:pw-1@h:5432/db", "pw-1", "postgresql+psycopg://u:***@h:5432/db"),
        (
            "postgresql+psycopg://u@h/db?password=pw-2",
            "pw-2",
            "postgresql+psycopg://u@h/db?password=***",
        ),
        ("postgresql+psycopg://u:pw@3-x@h/db", "3-x", "postgresql+psycopg://u:***@h/db"),
        ("mysql://u:pw-4@h/db", "pw-4", "mysql://u:***@h/db"),
    ],
)
def test_every_secret_of_a_url_is_hidden(url: str, secret: str, shown: str) -> None:
    from placement.storing.history import redacted

    assert redacted(url) == shown and secret not in redacted(url)


def test_a_database_this_version_cannot_own_is_refused_untouched(tmp_path: Path) -> None:
    other = tmp_path / "other.sqlite"
    with sa.create_engine(f"sqlite:///{other}").begin() as connection:
        connection.execute(sa.text("CREATE TABLE notes (x INTEGER)"))
    newer = tmp_path / "newer.sqlite"
    History(str(newer))
    with sa.create_engine(f"sqlite:///{newer}").begin() as connection:
        connection.execute(sa.text("UPDATE alembic_version SET version_num = '9999_future'"))
    for path, says in ((other, "another application's tables (notes)"), (newer, "newer")):
        before = path.read_bytes()
        result = invoke("history", "--db", path)
        assert_clean_failure(result)
        assert says in result.stderr and path.read_bytes() == before


def test_a_cycle_labelled_with_a_number_is_found_by_its_label(tmp_path: Path) -> None:
    db = str(tmp_path / "h.sqlite")
    history = History(db)
    history.save(plan(_one_job(1000)), "2027")
    assert history.get("2027").cycle == "2027"  # no run 2027: the cycle so labelled
    assert history.get("1").cycle == "2027"  # run 1 by its id
    with pytest.raises(PlacementInputError, match="no such run"):
        history.get(str(2**70))


def test_a_database_a_save_would_fail_on_is_refused_before_the_solve(tmp_path: Path) -> None:
    """A lock another process holds past the busy timeout (or a read-only file) fails before
    the solve: the writability probe takes SQLite's write lock and lets it go."""
    db = tmp_path / "h.sqlite"
    history = History(str(db))
    history.engine.dispose()
    holder = sqlite3.connect(db, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another process writing, and holding on
    try:
        blocked = History(str(db))
        # The same database with a 0.1 s busy timeout, not 60 s, for the test.
        blocked.engine = sa.create_engine(f"sqlite:///{db}", connect_args={"timeout": 0.1})
        with pytest.raises(PlacementInputError, match=r"cannot save to it .*locked"):
            blocked.check_writable()
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    History(str(db)).check_writable()  # free again
