"""The course: YAML on disk becomes typed, frozen objects; where its files live.

`load` is the only reader of course YAML; `model` holds the objects; `layout` says where stages, fixtures and the
grader's own state live; `stagecode` imports a stage's Python (reference, decoys, inputs, build) by path; `render`
makes a stage's stub and instructions.
"""

from grader.course.load import load_course
from grader.course.model import FORMAT_VERSION, Case, Course, Decoy, Function, InputSpec, Stage, Tolerance

__all__ = ["FORMAT_VERSION", "Case", "Course", "Decoy", "Function", "InputSpec", "Stage", "Tolerance", "load_course"]
