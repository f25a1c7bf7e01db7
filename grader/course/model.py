"""The course as frozen, typed records: what course.yaml and stage.yaml say once the loader has checked them."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from grader.records import Record, asdict, field

FORMAT_VERSION = 1  # of course.yaml and stage.yaml


class Tolerance(Record, frozen=True):
    """Elementwise |actual - expected| <= atol + rtol * |expected|."""

    atol: float
    rtol: float


class Values(Record, frozen=True):
    """A literal (nested) list of numbers."""

    values: list[Any]
    dtype: str = "float32"

    def __hash__(self) -> int:  # a Stage is a key of the watch loop's prepared fixtures; the list is left out
        return hash(self.dtype)


class Value(Record, frozen=True):
    """A plain scalar or text, passed as it is (a layer index, a number of heads, a prompt)."""

    value: int | float | str | bool


class Random(Record, frozen=True):
    """Seeded random numbers from numpy's legacy RandomState (its stream is stable across numpy versions)."""

    random: str  # normal | uniform
    shape: tuple[int, ...]
    seed: int
    dtype: str = "float32"
    loc: float = 0.0
    scale: float = 1.0
    low: float | None = None
    high: float | None = None


class Generate(Record, frozen=True):
    """An array made by a generator in the stage's inputs.py: `name(rng, **options)`."""

    generate: str
    seed: int
    options: dict[str, Any] = field(default_factory=dict)  # the generator's own keywords

    def __hash__(self) -> int:  # the dict is left out, as for Values
        return hash((self.generate, self.seed))

    @property
    def shape(self) -> tuple[int, ...] | None:
        shape = self.options.get("shape")
        return tuple(shape) if isinstance(shape, list) else None


class Artifact(Record, frozen=True):
    """The path of a file the stage's build.py wrote (the learner's function opens it)."""

    artifact: str


class Json(Record, frozen=True):
    """The parsed contents of a JSON artifact (a tokenizer's vocabulary, a list of merges)."""

    json: str


class Weights(Record, frozen=True):
    """The tensors of a safetensors artifact whose names start with `prefix`, as a dict with the prefix removed."""

    weights: str
    prefix: str = ""
    exclude: tuple[str, ...] = ()  # fnmatch patterns of (prefix-stripped) names to leave out


InputSource = Values | Value | Random | Generate | Artifact | Weights | Json
INPUT_KINDS: dict[str, type[InputSource]] = {"values": Values, "value": Value, "random": Random,
                                             "generate": Generate, "artifact": Artifact, "weights": Weights,
                                             "json": Json}


class InputSpec(Record, frozen=True):
    """How one argument of a case is made."""

    name: str
    kind: str  # a key of INPUT_KINDS
    source: InputSource

    def definition(self) -> dict[str, Any]:
        """The input's definition as plain data (what a fixture's digest is taken over)."""
        return {"name": self.name, "kind": self.kind, **asdict(self.source)}

    @classmethod
    def from_definition(cls, d: dict[str, Any]) -> InputSpec:
        """An InputSpec back from definition() (the course cache)."""
        fields = {k: v for k, v in d.items() if k not in ("name", "kind")}
        if d["kind"] == "random":
            fields["shape"] = tuple(fields["shape"])
        if d["kind"] == "weights":
            fields["exclude"] = tuple(fields["exclude"])
        return cls(name=d["name"], kind=d["kind"], source=INPUT_KINDS[d["kind"]](**fields))


class Function(Record, frozen=True):
    """A function the learner writes, and the reference that defines it."""

    name: str
    module: str  # student.gelu
    params: tuple[str, ...]
    reference: str  # function name in the stage's reference.py
    returns: str = "array"  # or "dict" (named arrays), "tuple" (arrays, nested, named by keys in order), "text"
    keys: tuple[str, ...] = ()  # for returns: dict
    elementwise: bool = False
    dtype: str | None = None  # the output dtype a learner should return, when no float input implies it
    doc: str = ""
    check: str | None = None  # a function in reference.py that judges an output instead of closeness to expected
    # The learner's calls of these functions ("student.kvcache:run_attention_cached") made while this one runs are
    # recorded (shapes only, run/observe.py), and `observe_check`, a function in checks.py, judges them: how the
    # function works, beside what it returns.
    observe: tuple[str, ...] = ()
    observe_check: str | None = None

    @property
    def student_file(self) -> str:
        return self.module.replace(".", "/") + ".py"


class Decoy(Record, frozen=True):
    """A known-wrong variant: if a learner's output matches it, the grader names the mistake."""

    id: str
    function: str  # name in decoys.py
    target: str  # the stage function it imitates
    hint: str


class External(Record, frozen=True):
    """What `--checkpoint PATH` means for a stage: the artifact a learner's file stands in for, and its checker."""

    artifacts: tuple[str, ...]  # the artifact files the learner's file stands in for
    open: str  # function in the stage's external.py: open(path) -> {"path", "description", "last_axis", "bounds"}


class Case(Record, frozen=True):
    """One call of one function, with its inputs and visibility."""

    id: str
    function: str
    inputs: tuple[InputSpec, ...]
    tolerance: Tolerance
    hidden: bool = False
    weight: float = 1.0
    line: int = 0


class Stage(Record, frozen=True):
    """One stage: a folder of YAML, markdown and numpy."""

    id: str
    title: str
    dir: Path
    summary: str
    functions: tuple[Function, ...]
    tolerance: Tolerance
    cases: tuple[Case, ...]
    points: float
    timeout: float
    memory_mb: int
    depends_on: tuple[str, ...] = ()
    hints: tuple[str, ...] = ()
    decoys: tuple[Decoy, ...] = ()
    instructions: str = "instructions.md"
    artifacts: str | None = None  # builder function in build.py
    hidden_count: int = 0  # hidden cases kept elsewhere (a handout's `hidden_cases: N`), not in `cases`
    derived: bool = False  # a handout or autograder copy (has `hidden_cases:`): reference.py is not shipped
    external: External | None = None  # `--checkpoint PATH` grades this stage on a file of the learner's own
    drift: str | None = None  # reference.py function listing the sites where a failing case first goes wrong
    demo: str | None = None  # demo.py function behind `python -m grader generate` (the learner's code at work)

    @property
    def file(self) -> Path:
        return self.dir / "stage.yaml"

    @property
    def module(self) -> str:
        return self.functions[0].module

    @property
    def student_file(self) -> str:
        return self.functions[0].student_file

    def function(self, name: str) -> Function:
        found = next((f for f in self.functions if f.name == name), None)
        if found is None:
            from grader.errors import CourseError

            raise CourseError(f"{self.file}: stage '{self.id}' has no function '{name}' (it has "
                              f"{', '.join(f.name for f in self.functions)})")
        return found

    def case(self, case_id: str) -> Case:
        return next(c for c in self.cases if c.id == case_id)

    def hidden_number(self, case_id: str) -> int:
        """A hidden case's place among the stage's hidden cases, in stage.yaml's order, from 1 (0: a public case).

        Learners see a hidden case as "hidden N" (results.shown_name), never by its id.
        """
        hidden = [c.id for c in self.cases if c.hidden]
        return hidden.index(case_id) + 1 if case_id in hidden else 0


UPSTREAM_POLICIES = ("reference", "own")  # course.yaml `upstream:`; see Course.upstream


class LatePolicy(Record, frozen=True):
    """What a late submission costs (course.yaml `late:`); the deadline itself is `batch --deadline`."""

    grace_minutes: float = 0.0  # this late still counts as on time
    per_day: float = 0.0  # share of the points taken off per day late (a started day counts whole)
    max_days: float | None = None  # later than this many days past the deadline: no points


class Course(Record, frozen=True):
    """The whole course, in order."""

    root: Path
    title: str
    stages: tuple[Stage, ...]
    timeout: float
    memory_mb: int
    # Graded runs (batch, Gradescope): "reference" grades each stage with the reference of the stages it depends
    # on in place of the learner's (one upstream mistake costs its own stage only); "own" uses the learner's.
    upstream: str = "reference"
    late: LatePolicy = field(default_factory=LatePolicy)
    # Modules of common/ a learner's handout may hold (course.yaml `common: public:`); every other one is reference
    # code, shipped only to the autograder where a reference it ships imports it (course/derived.py).
    common_public: tuple[str, ...] = ()

    def stage(self, stage_id: str) -> Stage:
        from grader.errors import UsageError

        for s in self.stages:
            if s.id == stage_id:
                return s
        import difflib

        near = difflib.get_close_matches(stage_id, [s.id for s in self.stages], n=1)
        also = f" Did you mean '{near[0]}'?" if near else ""
        ids = ", ".join(s.id for s in self.stages)
        raise UsageError(f"no stage '{stage_id}' in {self.root / 'course.yaml'} (stages: {ids}).{also}")

    def stage_of_module(self, module: str) -> Stage | None:
        return next((s for s in self.stages if s.module == module), None)
