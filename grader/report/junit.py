"""JUnit XML: a testsuite per stage, a testcase per case, for CI systems and editors that read JUnit reports.

The shape is the one the common JUnit schema (Jenkins' junit-10.xsd, read by GitLab, Jenkins and GitHub test
reporters) accepts: <testsuites> of <testsuite name tests failures errors skipped time>, each with <properties>
(the stage's points) and <testcase classname name time>, which holds a <failure>, <error> or <skipped>. Points are
properties, and the total is in the <testsuites> name. XML 1.0 cannot carry most control characters (ANSI colours,
NUL) so they are dropped; quotes, newlines and non-ASCII text are escaped by the writer.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from grader.report.casetext import upstream_sentence
from grader.report.gradescope import case_feedback
from grader.results import CaseResult, Report, Status, redacted, shown_report

_ANSI = re.compile(r"\x1b\[[0-9;?]*[ -/]*[@-~]")
_NOT_XML = re.compile("[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]")


def clean(text: str) -> str:
    """Text XML 1.0 can hold: ANSI escapes and other control characters removed."""
    return _NOT_XML.sub("", _ANSI.sub("", text))


def _seconds(x: float) -> str:
    return f"{max(x, 0.0):.3f}"


def _case(parent: ET.Element, stage_id: str, case: CaseResult) -> None:
    case = redacted(case)  # a hidden case: its verdict and named mistake, no message, values or output
    el = ET.SubElement(parent, "testcase", classname=clean(f"gpt2_course.{stage_id}"), name=clean(case.case),
                       time=_seconds(case.seconds))
    detail = clean(case_feedback(case))
    label = "hidden check" if case.hidden else case.case
    if case.status is Status.PASS:
        return
    if case.status is Status.SKIPPED:
        ET.SubElement(el, "skipped", message=clean(case.message or "not run"))
        return
    if case.status in (Status.FAIL, Status.TODO):
        message = "not started" if case.status is Status.TODO else (
            f"known mistake: {case.diagnosis}" if case.diagnosis else f"{label}: output out of tolerance")
        ET.SubElement(el, "failure", type=case.status.value, message=clean(message)).text = detail
    else:
        first = (case.message or case.status.value).splitlines()[0]
        ET.SubElement(el, "error", type=case.status.value, message=clean(first)).text = detail
    if case.stdout.strip():
        ET.SubElement(el, "system-out").text = clean(case.stdout)
    if case.stderr.strip():
        ET.SubElement(el, "system-err").text = clean(case.stderr)


def render(report: Report) -> str:
    """The report as a JUnit XML document."""
    report = shown_report(report)
    root = ET.Element("testsuites", name=clean(f"{report.course} ({report.points:.4g}/{report.max_points:.4g} "
                                               "points)"))
    totals = {"tests": 0, "failures": 0, "errors": 0, "skipped": 0}
    time = 0.0
    for stage in report.stages:
        counts = {"tests": len(stage.cases),
                  "failures": sum(c.status in (Status.FAIL, Status.TODO) for c in stage.cases),
                  "errors": sum(c.status.category == "error" and c.status is not Status.SKIPPED for c in stage.cases),
                  "skipped": sum(c.status is Status.SKIPPED for c in stage.cases)}
        seconds = sum(redacted(c).seconds for c in stage.cases)  # a hidden case's time is not to be read either
        suite = ET.SubElement(root, "testsuite", {"name": clean(stage.stage), "time": _seconds(seconds),
                                                  **{k: str(v) for k, v in counts.items()}})
        props = ET.SubElement(suite, "properties")
        for name, value in (("title", stage.title), ("status", stage.status.value),
                            ("points", f"{stage.points:g}"), ("max_points", f"{stage.max_points:g}"),
                            ("hidden_not_run", str(stage.hidden_not_run)),
                            ("course_points", f"{report.points:g}"), ("course_max_points", f"{report.max_points:g}"),
                            *(("note", note) for note in report.notes)):
            ET.SubElement(props, "property", name=name, value=clean(value))
        if upstream_sentence(stage):
            ET.SubElement(props, "property", name="upstream", value=clean(upstream_sentence(stage) or ""))
        for case in stage.cases:
            _case(suite, stage.stage, case)
        for k, v in counts.items():
            totals[k] += v
        time += seconds
    root.set("time", _seconds(time))
    for k in ("tests", "failures", "errors"):
        root.set(k, str(totals[k]))
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"
