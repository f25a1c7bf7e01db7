"""Round 28: grade one submission (real jail) with upstream's passes logged: each job handed to the jail, whether
student/ then held references (a references run) or the learner's own files, the stage and pass. Asserts that no
job of the learner's own files follows a job with references.  usage: python attacks/r28/order_probe.py SUB_DIR"""
import sys
from pathlib import Path

from grader.course.load import load_course
from grader.instructor import upstream
from grader.run.jail import box as jailbox

log = []
orig_send = jailbox.Jail._send_job


def send(self, box, calls, limits, cpu):
    refs = ".grader-references-" in str(self.root)
    log.append((refs, calls[0].module, [c.case for c in calls]))
    return orig_send(self, box, calls, limits, cpu)


jailbox.Jail._send_job = send
course = load_course("/work/redteam28")
report = upstream.grade_stages(course, Path(sys.argv[1]), upstream.Settings())
seen_refs = False
bad = []
for refs, module, cases in log:
    print("REFS" if refs else "own ", module, cases[:3], "..." if len(cases) > 3 else "")
    if refs:
        seen_refs = True
    elif seen_refs:
        bad.append((module, cases))
print("points", report.points, "/", report.max_points, {s.stage: round(s.points, 2) for s in report.stages})
print("own jobs after a references job:", bad or "none")
