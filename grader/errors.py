"""The grader's one error hierarchy: every message names the thing and the next step.

The CLI is the only place that turns these into text and an exit code (2).
"""


class GraderError(Exception):
    """A problem the user can act on; the message says what and where."""


class CourseError(GraderError):
    """course.yaml or a stage definition is malformed."""


class FixtureError(GraderError):
    """A fixture is missing, damaged, stale, or cannot be built."""


class UsageError(GraderError):
    """The command line asks for something that does not exist."""
