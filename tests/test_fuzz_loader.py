"""Property-based fuzzing (issue 6) of the two parsers of untrusted files: the course/stage YAML loader and the
submission unpacker. No input may raise anything but the grader's own error, and that error must name the file
(and, for YAML, the line where one exists). tests/fuzz/ holds the same targets for atheris (coverage-guided);
this file also runs each of them for a bounded number of inputs.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest
import yaml
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from grader.course import Course, load_course
from grader.errors import CourseError, GraderError
from grader.instructor import submissions
from tests.conftest import MINI, copy_course

ROOT = Path(__file__).resolve().parent.parent
FUZZ = ROOT / "tests" / "fuzz"
pytestmark = [pytest.mark.slow, pytest.mark.filterwarnings("ignore:Duplicate name:UserWarning")]
SETTINGS = settings(max_examples=200, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])

scalars = st.one_of(st.none(), st.booleans(), st.integers(-2**70, 2**70), st.integers(-3, 3),
                    st.floats(allow_nan=True, allow_infinity=True), st.text(max_size=12),
                    st.sampled_from(["float32", "normal", "uniform", "student.double:run_double", "hidden",
                                     "public", "array", "dict", "double", "x", ""]))
values = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                       st.dictionaries(st.text(max_size=8), inner, max_size=4)),
                      max_leaves=12)
STAGE_KEYS = ["id", "title", "summary", "points", "timeout", "memory_mb", "depends_on", "hints", "decoys",
              "instructions", "artifacts", "tolerance", "functions", "cases", "atoll", "tolerence"]


def mutate(doc: object, data: st.DataObject) -> object:
    """Walk to a random place in a parsed YAML document and replace, delete or add something there."""
    node = doc
    for _ in range(data.draw(st.integers(0, 4))):
        if isinstance(node, dict) and node:
            key = data.draw(st.sampled_from(sorted(node, key=str)))
            if not isinstance(node[key], dict | list):
                break
            node = node[key]
        elif isinstance(node, list) and node:
            i = data.draw(st.integers(0, len(node) - 1))
            if not isinstance(node[i], dict | list):
                break
            node = node[i]
    action = data.draw(st.sampled_from(["replace", "delete", "add"]))
    if isinstance(node, dict) and node:
        key = data.draw(st.sampled_from(sorted(node, key=str)))
        if action == "replace":
            node[key] = data.draw(values)
        elif action == "delete":
            del node[key]
        else:
            node[data.draw(st.sampled_from(STAGE_KEYS) | st.text(max_size=6))] = data.draw(values)
    elif isinstance(node, list):
        if action == "delete" and node:
            node.pop(data.draw(st.integers(0, len(node) - 1)))
        else:
            node.append(data.draw(values))
    return doc


def located(message: str, path: Path) -> bool:
    return message.startswith(str(path)) or str(path) in message


@pytest.fixture(scope="module")
def course_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return copy_course(MINI, tmp_path_factory.mktemp("fuzz-course"))


def _load_or_error(root: Path) -> Course | CourseError | GraderError:
    try:
        return load_course(root)
    except GraderError as e:  # anything else propagates: a traceback is the bug this file looks for
        return e


@SETTINGS
@given(data=st.data(), which=st.sampled_from(["double", "combine", "split"]))
def test_mutated_stage_yaml_loads_or_is_refused_with_file_and_line(course_dir, data, which):
    path = course_dir / "stages" / which / "stage.yaml"
    original = (MINI / "stages" / which / "stage.yaml").read_text()
    doc = mutate(yaml.safe_load(original), data)
    try:
        path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False))
        out = _load_or_error(course_dir)
    finally:
        path.write_text(original)
    if isinstance(out, GraderError):
        assert located(str(out), path), str(out)


@SETTINGS
@given(data=st.data())
def test_mutated_course_yaml_loads_or_is_refused(course_dir, data):
    path = course_dir / "course.yaml"
    original = (MINI / "course.yaml").read_text()
    doc = mutate(yaml.safe_load(original), data)
    try:
        path.write_text(yaml.safe_dump(doc, allow_unicode=True, sort_keys=False))
        out = _load_or_error(course_dir)
    finally:
        path.write_text(original)
    if isinstance(out, GraderError):
        assert str(course_dir) in str(out), str(out)


@SETTINGS
@given(text=st.one_of(st.text(max_size=300), st.binary(max_size=300).map(lambda b: b.decode("latin1")),
                      st.sampled_from(["a: [", "{{{", "- - -", "!!python/object:os.system x", "&a [*a]",
                                       "id: double\nid: double", "\ufeffid: double", "a: *b", "? [1]\n: 2",
                                       "x: 1e999", "x: .nan", "<<: *base"])))
def test_any_text_as_stage_yaml_is_refused_with_the_file(course_dir, text):
    path = course_dir / "stages" / "double" / "stage.yaml"
    original = (MINI / "stages" / "double" / "stage.yaml").read_text()
    try:
        path.write_bytes(text.encode("utf-8", errors="surrogatepass"))
        out = _load_or_error(course_dir)
    finally:
        path.write_text(original)
    assert isinstance(out, GraderError), "a random text loaded as a stage"
    assert located(str(out), path), str(out)


def test_yaml_aliases_cannot_blow_up_the_loader(course_dir):
    """A billion-laughs document: refused (or loaded) quickly, never a hang or a MemoryError."""
    path = course_dir / "stages" / "double" / "stage.yaml"
    original = path.read_text()
    bomb = "a: &a [x, x, x, x, x, x, x, x, x]\n" + "".join(
        f"{chr(98 + i)}: &{chr(98 + i)} [*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, "
        f"*{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}, *{chr(97 + i)}]\n" for i in range(8))
    try:
        path.write_text(bomb)
        out = _load_or_error(course_dir)
    finally:
        path.write_text(original)
    assert isinstance(out, GraderError) and located(str(out), path)


# --- the submission unpacker ---------------------------------------------------------------------------------

names = st.one_of(
    st.sampled_from(["student/gelu.py", "student/mlp.py", "student/__init__.py", "x/student/gelu.py",
                     "student/sub/deep.py", "../student/gelu.py", "/student/gelu.py", "student/../../evil.py",
                     "C:/student/gelu.py", "student\\gelu.py", "student/__pycache__/gelu.py", "__MACOSX/student/a.py",
                     "a/student/b.py", "b/student/c.py", "student/", "student/.py", "student/" + "a" * 200 + ".py",
                     "gelu.py", "student/gelu.txt", "student/ünï.py", "student/a\x00b.py"]),
    st.text(min_size=1, max_size=30))
entries = st.lists(st.tuples(names, st.binary(max_size=64) | st.sampled_from([b"x = 1\n", b"\xff\xfe", b"a\0b"]),
                             st.sampled_from([0, 0, 0o120777 << 16, 0o100644 << 16]), st.sampled_from([0, 0, 1])),
                   max_size=8)


def _tree(folder: Path) -> set[str]:
    return {str(p.relative_to(folder)) for p in folder.rglob("*")}


@SETTINGS
@given(items=entries, flat_ok=st.booleans())
def test_any_zip_unpacks_into_dest_or_is_refused_naming_it(tmp_path, items, flat_ok):
    work = tmp_path / f"w{abs(hash(repr(items))) % 10**9}"
    work.mkdir()
    try:
        zpath = work / "sub.zip"
        with zipfile.ZipFile(zpath, "w") as z:
            for name, data, attr, flag in items:
                info = zipfile.ZipInfo(name)
                info.external_attr, info.flag_bits = attr, info.flag_bits | flag
                try:
                    z.writestr(info, data)
                except (ValueError, UnicodeEncodeError):
                    pass
        dest = work / "dest"
        before = _tree(work)
        try:
            written = submissions.unpack(submissions.Submission("sub", zpath), dest, flat_ok=flat_ok)
        except submissions.SubmissionError as e:
            assert str(zpath) in str(e) or "sub.zip" in str(e), str(e)
            written = []
        outside = _tree(work) - before - {p for p in _tree(work) if p == "dest" or p.startswith("dest/")}
        assert not outside, outside  # nothing written beside dest
        for rel in written:
            target = (dest / rel).resolve()
            assert str(target).startswith(str((dest / "student").resolve()) + os.sep), rel
            assert target.suffix == ".py"
    finally:
        shutil.rmtree(work)


@SETTINGS
@given(blob=st.binary(max_size=400))
def test_any_bytes_as_a_zip_are_refused_not_raised(tmp_path, blob):
    zpath = tmp_path / "blob.zip"
    zpath.write_bytes(b"PK\x03\x04" + blob if blob[:1] == b"\x00" else blob)
    try:
        submissions.unpack(submissions.Submission("blob", zpath), tmp_path / "dest")
    except submissions.SubmissionError as e:
        assert "blob.zip" in str(e)


def test_zip_entry_with_an_empty_name_is_refused(tmp_path):
    """Found by tests/fuzz/fuzz_unpack.py: zipfile's is_dir() raised IndexError on an empty entry name."""
    zpath = tmp_path / "empty.zip"
    with zipfile.ZipFile(zpath, "w") as z:
        z.writestr("student/gelu.py", "x = 1\n")
        z.writestr(zipfile.ZipInfo(""), b"")
    with pytest.raises(submissions.SubmissionError):
        submissions.unpack(submissions.Submission("empty", zpath), tmp_path / "dest")


# --- the atheris targets, bounded --------------------------------------------------------------------------


@pytest.mark.parametrize("target", ["fuzz_loader.py", "fuzz_unpack.py"])
def test_atheris_target_runs_clean(target, tmp_path):
    pytest.importorskip("atheris")
    proc = subprocess.run([sys.executable, str(FUZZ / target), "-runs=1500", "-seed=1", "-max_len=2048",
                           f"-artifact_prefix={tmp_path}/"], capture_output=True, text=True, timeout=170,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr[-3000:]
    done = re.search(r"Done (\d+) runs", proc.stderr)
    assert done and int(done.group(1)) >= 1500, proc.stderr[-1000:]
