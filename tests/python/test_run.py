"""gpubench.run: the program's run in this process, its records, and the report it saves."""

import json
import sys

import pytest

import gpubench


def quick_sum(**extra):
    return gpubench.run(op="sum", size=4096, backend="eigen", min_samples=5, min_time=0.0, max_time=0.2, **extra)


def test_run_returns_the_records_the_program_writes(gpubench_cli, tmp_path):
    results = quick_sum()
    assert len(results) == 1
    record = results[0]
    assert record["id"] == "sum/eigen/f32/4096"
    assert (record["op"], record["backend"], record["device"], record["status"]) == ("sum", "eigen", "cpu", "ok")
    assert record["verification"]["checked"] and record["verification"]["passed"]
    assert len(record["samples_s"]) == record["statistics"]["count"] >= 5
    statistics = record["statistics"]
    assert statistics["median_ci_low"] <= statistics["median"] <= statistics["median_ci_high"]
    assert results.context["settings"]["min_samples"] == 5

    cli_path = tmp_path / "cli.json"
    gpubench_cli("run", "--op", "sum", "--size", 4096, "--backend", "eigen", "--min-samples", 5, "--min-time", 0,
                 "--max-time", 0.2, "--quiet", "--out", cli_path)
    cli = json.loads(cli_path.read_text())
    # The same document, field for field: the same reporter wrote both.
    assert set(cli) == set(results.document)
    assert set(cli["results"][0]) == set(record)
    assert set(cli["context"]) == set(results.context)
    assert cli["results"][0]["id"] == record["id"]
    assert cli["context"]["settings"] == results.context["settings"]


def test_saved_report_is_read_by_compare_report_merge_and_history(gpubench_cli, tmp_path, monkeypatch):
    # Two ranks of a torchrun launch, as the program reads its launcher from the environment.
    monkeypatch.setenv("WORLD_SIZE", "2")
    monkeypatch.setenv("LOCAL_RANK", "0")
    monkeypatch.setenv("RANK", "0")
    first = quick_sum()
    monkeypatch.setenv("RANK", "1")
    second = quick_sum()
    assert (first.context["ranks"][0]["rank"], second.context["ranks"][0]["rank"]) == (0, 1)
    first.save(tmp_path / "a.json")
    second.save(tmp_path / "b.json")
    with pytest.raises(FileExistsError):
        first.save(tmp_path / "a.json")  # never overwrites
    compared = gpubench_cli("compare", tmp_path / "a.json", tmp_path / "b.json", check=False)
    assert compared.returncode in (0, 1, 4), compared.stderr  # a verdict, not a refusal (2)
    assert "sum/eigen/f32/4096" in compared.stdout
    assert "sum/eigen/f32/4096" in gpubench_cli("report", tmp_path / "a.json").stdout
    gpubench_cli("merge", tmp_path / "a.json", tmp_path / "b.json", "--out", tmp_path / "merged.json")
    merged = json.loads((tmp_path / "merged.json").read_text())
    assert [record["id"] for record in merged["results"]] == ["sum/eigen/f32/4096"] * 2
    database = tmp_path / "history.db"
    gpubench_cli("history", "ingest", tmp_path / "a.json", "--db", database)
    gpubench_cli("history", "ingest", tmp_path / "b.json", "--db", database)
    listed = gpubench_cli("history", "list", "--db", database).stdout
    assert "2 runs" in listed, listed
    assert gpubench.load(tmp_path / "a.json")[0]["id"] == "sum/eigen/f32/4096"


def test_unknown_setting_names_it_and_what_was_meant():
    with pytest.raises(ValueError, match=r"max_nois.*did you mean 'max_noise'"):
        quick_sum(max_nois=0.01)


def test_bad_values_are_value_errors_naming_them():
    with pytest.raises(ValueError, match=r"sine.*did you mean 'sin'"):
        gpubench.run(op="sine", size=1024)
    with pytest.raises(ValueError, match="min_samples"):
        quick_sum(min_samples=0) if False else gpubench.run(op="sum", size=1024, min_samples=0)
    with pytest.raises(ValueError, match="format"):
        quick_sum(format="csv")
    with pytest.raises(ValueError, match="warmup takes True or False|warmup"):
        gpubench.run(op="sum", size=1024, warmup="many")


def test_keywords_are_the_program_flags_with_fractions():
    args = gpubench.command_line(op=["sum", "sqrt"], size=[1024, "4K"], max_noise=0.01, tf32=True, l2="warm",
                                 discard_throttled=False)
    assert args[:8] == ["--op", "sum", "--op", "sqrt", "--size", "1024", "--size", "4K"]
    assert args[args.index("--max-noise") + 1] == "1.0"
    assert "--tf32" in args and "--discard-throttled" not in args
    assert args[args.index("--l2") + 1] == "warm"


def test_pandas_frame_and_table_reprs():
    results = quick_sum()
    pandas = pytest.importorskip("pandas")
    frame = results.to_pandas()
    assert isinstance(frame, pandas.DataFrame)
    assert list(frame["id"]) == ["sum/eigen/f32/4096"]
    assert frame["median"][0] == results[0]["statistics"]["median"]
    assert "<table>" in results._repr_html_() and "sum/eigen/f32/4096" in results._repr_html_()
    assert results._repr_markdown_().splitlines()[2].startswith("| sum/eigen/f32/4096 |")


def test_to_pandas_without_pandas_says_what_to_install(monkeypatch):
    results = quick_sum()
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ImportError, match="pip install pandas"):
        results.to_pandas()


def test_module_command_line_runs_the_program(capsys):
    assert gpubench._run.main(["list"]) == 0
    assert "eigen" in capsys.readouterr().out
