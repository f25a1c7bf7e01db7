"""The JUnit, Gradescope and CSV writers: valid against their format, hidden cases reduced, awkward text intact."""

from __future__ import annotations

import csv
import io
import json
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import pytest
from conftest import run_cli

from grader.report import csv as csv_report
from grader.report import gradescope, junit
from grader.results import CaseResult, Comparison, Mismatch, Report, StageResult, Status

AWKWARD = 'quote " apostrophe \' <tag> & amp\nsecond line · ünïcødé 中文 \x1b[31mred\x1b[0m nul\x00 bell\x07'
SECRET = "SECRET-1.2345"


def _report() -> Report:
    worst = Mismatch(index=(1,), actual=0.5, expected=1.25)
    fail = Comparison(ok=False, shape_actual=(3,), shape_expected=(3,), total=3, mismatched=1, max_abs_error=0.75,
                      max_abs_index=(1,), max_rel_error=0.6, max_rel_index=(1,), worst=worst, first=[worst])
    cases = [
        CaseResult("s1", "ok_case", "f", Status.PASS, points=2.0, max_points=2.0, seconds=0.01),
        CaseResult("s1", 'we"ird\ncase ü', "f", Status.FAIL, max_points=2.0, comparisons=[fail],
                   diagnosis="plus_two", diagnosis_hint=AWKWARD, stdout=AWKWARD),
        CaseResult("s1", "boom", "f", Status.EXCEPTION, max_points=1.0, message="ValueError: " + AWKWARD),
        CaseResult("s1", "hidden_fail", "f", Status.FAIL, max_points=1.0, hidden=True,
                   comparisons=[Comparison(ok=False, total=3, mismatched=3, worst=Mismatch((0,), 9.0, 1.2345))],
                   diagnosis="square", diagnosis_hint="Squaring is not doubling.", stdout=SECRET, stderr=SECRET),
        CaseResult("s1", "hidden_error", "f", Status.EXCEPTION, max_points=1.0, hidden=True,
                   message=f"IndexError: index {SECRET} is out of bounds", stdout=SECRET),
    ]
    todo = [CaseResult("s2", "t", "g", Status.TODO, max_points=3.0, message="not written yet"),
            CaseResult("s2", "skipped", "g", Status.SKIPPED, max_points=1.0, message="not run")]
    return Report(course="Cøurse \"one\"", stages=[StageResult("s1", "Stage <one>", cases, max_points=7.0),
                                                   StageResult("s2", "Two", todo, max_points=4.0,
                                                               hidden_not_run=2)])


# --- JUnit: the common JUnit schema (Jenkins' junit-10.xsd, as GitLab and GitHub reporters read it) ---------

JUNIT_XSD = """<?xml version="1.0" encoding="UTF-8"?>
<xs:schema xmlns:xs="http://www.w3.org/2001/XMLSchema">
  <xs:simpleType name="Time"><xs:restriction base="xs:string">
    <xs:pattern value="(([0-9]{0,3},)*[0-9]{3}|[0-9]{0,3})*(\\.[0-9]*)?"/></xs:restriction></xs:simpleType>
  <xs:complexType name="Outcome" mixed="true">
    <xs:attribute name="type" type="xs:string"/><xs:attribute name="message" type="xs:string"/></xs:complexType>
  <xs:element name="failure" type="Outcome"/>
  <xs:element name="error" type="Outcome"/>
  <xs:element name="skipped" type="Outcome"/>
  <xs:element name="system-out" type="xs:string"/>
  <xs:element name="system-err" type="xs:string"/>
  <xs:element name="property"><xs:complexType>
    <xs:attribute name="name" type="xs:string" use="required"/>
    <xs:attribute name="value" type="xs:string" use="required"/></xs:complexType></xs:element>
  <xs:element name="properties"><xs:complexType><xs:sequence>
    <xs:element ref="property" minOccurs="0" maxOccurs="unbounded"/></xs:sequence></xs:complexType></xs:element>
  <xs:element name="testcase"><xs:complexType><xs:sequence>
    <xs:choice minOccurs="0" maxOccurs="unbounded">
      <xs:element ref="skipped"/><xs:element ref="error"/><xs:element ref="failure"/>
      <xs:element ref="system-out"/><xs:element ref="system-err"/></xs:choice></xs:sequence>
    <xs:attribute name="name" type="xs:string" use="required"/>
    <xs:attribute name="time" type="xs:string"/>
    <xs:attribute name="classname" type="xs:string"/></xs:complexType></xs:element>
  <xs:element name="testsuite"><xs:complexType>
    <xs:choice minOccurs="0" maxOccurs="unbounded">
      <xs:element ref="testsuite"/><xs:element ref="properties"/><xs:element ref="testcase"/>
      <xs:element ref="system-out"/><xs:element ref="system-err"/></xs:choice>
    <xs:attribute name="name" type="xs:string" use="required"/>
    <xs:attribute name="tests" type="xs:string" use="required"/>
    <xs:attribute name="failures" type="xs:string" use="required"/>
    <xs:attribute name="errors" type="xs:string" use="required"/>
    <xs:attribute name="skipped" type="xs:string"/>
    <xs:attribute name="time" type="Time"/>
    <xs:attribute name="timestamp" type="xs:string"/></xs:complexType></xs:element>
  <xs:element name="testsuites"><xs:complexType><xs:sequence>
    <xs:element ref="testsuite" minOccurs="0" maxOccurs="unbounded"/></xs:sequence>
    <xs:attribute name="name" type="xs:string"/><xs:attribute name="time" type="Time"/>
    <xs:attribute name="tests" type="xs:string"/><xs:attribute name="failures" type="xs:string"/>
    <xs:attribute name="errors" type="xs:string"/></xs:complexType></xs:element>
</xs:schema>
"""


def test_junit_parses_and_counts() -> None:
    text = junit.render(_report())
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "testsuites" and root.get("tests") == "7"
    assert root.get("failures") == "4" and root.get("errors") == "1"  # a hidden error shows as a failure
    s1, s2 = root.findall("testsuite")
    assert (s1.get("tests"), s1.get("failures"), s1.get("errors")) == ("5", "3", "1")
    assert (s2.get("failures"), s2.get("skipped")) == ("1", "1")
    props = {p.get("name"): p.get("value") for p in s1.iter("property")}
    assert props["points"] == "2" and props["max_points"] == "7" and props["course_max_points"] == "11"
    assert "2/11 points" in (root.get("name") or "")
    weird = next(c for c in s1.iter("testcase") if c.get("name") == 'we"ird\ncase ü')
    fail = weird.find("failure")
    assert fail is not None and "known mistake: plus_two" in (fail.get("message") or "")
    assert "second line · ünïcødé 中文" in (fail.text or "") and "\x1b" not in text and "\x00" not in text
    out = weird.find("system-out")
    assert out is not None and 'quote " apostrophe' in (out.text or "")


def test_junit_hides_hidden_cases() -> None:
    text = junit.render(_report())
    assert SECRET not in text and "1.2345" not in text
    assert "Known mistake: square" in text


def test_junit_matches_the_schema() -> None:
    xmlschema = pytest.importorskip("xmlschema", reason="xmlschema (test extra) validates against the XSD")
    schema = xmlschema.XMLSchema(JUNIT_XSD)
    schema.validate(junit.render(_report()))
    with pytest.raises(xmlschema.XMLSchemaValidationError):  # the schema check itself can fail
        schema.validate('<testsuites><testsuite name="x"/></testsuites>')


# --- Gradescope: the documented results.json fields ----------------------------------------------------------

TOP = {"score": (int, float), "execution_time": (int, float), "output": str, "output_format": str,
       "test_output_format": str, "test_name_format": str, "visibility": str, "stdout_visibility": str,
       "extra_data": dict, "tests": list, "leaderboard": list}
TEST = {"score": (int, float), "max_score": (int, float), "status": str, "name": str, "name_format": str,
        "number": str, "output": str, "output_format": str, "tags": list, "visibility": str, "extra_data": dict}
VISIBILITY = {"hidden", "after_due_date", "after_published", "visible"}
FORMATS = {"text", "html", "simple_format", "md", "ansi"}


def validate_gradescope(data: Any) -> None:
    """Gradescope's autograder specification, as a checker: known keys, their types and enumerations."""
    assert isinstance(data, dict)
    for key, value in data.items():
        assert key in TOP, f"unknown top-level key {key}"
        assert isinstance(value, TOP[key]) and not isinstance(value, bool), key
    assert "score" in data or all("score" in t for t in data.get("tests", []))
    for key in ("visibility", "stdout_visibility"):
        assert data.get(key, "visible") in VISIBILITY
    for key in ("output_format", "test_output_format"):
        assert data.get(key, "text") in FORMATS
    for t in data.get("tests", []):
        for key, value in t.items():
            assert key in TEST, f"unknown test key {key}"
            assert isinstance(value, TEST[key]) and not isinstance(value, bool), key
        assert t.get("status", "passed") in ("passed", "failed")
        assert t.get("visibility", "visible") in VISIBILITY and t.get("output_format", "text") in FORMATS
        assert 0 <= t.get("score", 0) <= t.get("max_score", float("inf")) + 1e-9


def test_gradescope_results_follow_the_spec() -> None:
    report = _report()
    data = json.loads(gradescope.render(report))
    validate_gradescope(data)
    assert data["score"] == pytest.approx(report.points) == pytest.approx(sum(t["score"] for t in data["tests"]))
    assert sum(t["max_score"] for t in data["tests"]) == pytest.approx(report.max_points)
    assert data["extra_data"]["max_score"] == pytest.approx(11.0) and "2/11 points" in data["output"]
    names = [t["name"] for t in data["tests"]]
    assert 's1: we"ird\ncase ü' in names
    with pytest.raises(AssertionError):
        validate_gradescope({**data, "tests": [{**data["tests"][0], "status": "ok"}]})


def test_gradescope_hides_hidden_cases() -> None:
    data = json.loads(gradescope.render(_report()))
    assert SECRET not in json.dumps(data, ensure_ascii=False) and "1.2345" not in json.dumps(data)
    hidden = {t["name"]: t["output"] for t in data["tests"] if "hidden" in t["name"]}
    assert "Known mistake: square" in hidden["s1: hidden 1"]
    assert "failed" in hidden["s1: hidden 2"] and "exception" not in hidden["s1: hidden 2"]  # how: not shown


# --- CSV (RFC 4180) --------------------------------------------------------------------------------------------


def test_csv_row_round_trips() -> None:
    text = csv_report.render(_report())
    assert text.endswith("\r\n")
    header, row = list(csv.reader(io.StringIO(text, newline="")))
    data = dict(zip(header, row, strict=True))
    assert data["course"] == 'Cøurse "one"' and float(data["points"]) == 2.0 and float(data["max_points"]) == 11.0
    assert data["s1_status"] == "fail" and data["s2_status"] == "skipped"
    assert header == csv_report.header(["s1", "s2"])  # the columns of a cohort's CSV too (batch --csv)


def test_csv_cells_never_run_as_formulas() -> None:
    text = csv_report.table(["a", "b"], [["=HYPERLINK(\"x\")", "line1\nline2, \"q\""]])
    _, row = list(csv.reader(io.StringIO(text, newline="")))
    assert row == ["'=HYPERLINK(\"x\")", "line1\nline2, \"q\""]


# --- the CLI writes several formats from one run -------------------------------------------------------------


def test_one_run_writes_every_format(mini_template: Path, tmp_path: Path) -> None:
    import shutil

    course = tmp_path / "c"
    shutil.copytree(mini_template, course)
    (course / "student" / "double.py").write_text("def run_double(x):\n    return x * x\n")
    out = {f: tmp_path / f"r.{f}" for f in ("junit", "gradescope", "csv", "json")}
    result = run_cli("--stage", "double", *[a for f, p in out.items() for a in ("--output", f"{f}={p}")],
                     cwd=course)
    assert result.returncode == 1, result.stderr
    assert "Known mistake: square" in result.stdout  # the terminal report still prints
    ET.parse(out["junit"])
    validate_gradescope(json.loads(out["gradescope"].read_text()))
    assert json.loads(out["json"].read_text())["max_points"] == 4.0
    header, row = list(csv.reader(io.StringIO(out["csv"].read_text(), newline="")))
    assert dict(zip(header, row, strict=True))["max_points"] == "4"
    bad = run_cli("--stage", "double", "--output", f"yaml={tmp_path / 'x'}", cwd=course)
    assert bad.returncode == 2 and "unknown format 'yaml'" in bad.stderr
