"""The learner's code in a child process: the security perimeter. Imports only results and errors.

`sandbox` (the grader's side: fork, read frames, time out, reap), `child` (the child's side: import from source,
call, send), `confine` (graded mode's confinement), `protocol` (calls, outcomes, frames, safe text), `capture`
(a call's printed output and its stack at a timeout), `reap` (ending what a child started).
"""
