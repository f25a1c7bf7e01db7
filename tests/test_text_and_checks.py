"""Text outputs, JSON inputs and a stage's own check: what the tokenizer and generation stages need."""

from __future__ import annotations

from grader.judge import grade
from grader.results import Status
from tests.conftest import course_from_files

FILES = {
    "course.yaml": "format_version: 1\ntitle: Words\nstages: [words, pick]\n",
    "stages/words/stage.yaml": """\
id: words
title: Look words up
tolerance: {atol: 0, rtol: 0}
artifacts: build
functions:
  run_encode: {entry: "student.words:run_encode", params: [text, vocab], reference: encode, dtype: int64}
  run_decode: {entry: "student.words:run_decode", params: [ids, vocab], reference: decode, returns: text}
decoys:
  - {id: upper, function: upper, for: run_decode, hint: "Keep the case of the words."}
cases:
  - id: enc
    function: run_encode
    inputs: {text: {value: "the cat sat"}, vocab: {json: vocab.json}}
  - id: dec
    function: run_decode
    inputs: {ids: {values: [2, 0, 1], dtype: int64}, vocab: {json: vocab.json}}
""",
    "stages/words/build.py": ("import json\n\n\ndef build(dest):\n"
                              "    (dest / 'vocab.json').write_text(json.dumps({'cat': 0, 'sat': 1, 'the': 2}))\n"),
    "stages/words/reference.py": """\
def encode(text, vocab):
    return [vocab[w] for w in text.split()]


def decode(ids, vocab):
    words = {v: k for k, v in vocab.items()}
    return " ".join(words[int(i)] for i in ids)
""",
    "stages/words/decoys.py": "from reference import decode\n",
    "stages/pick/stage.yaml": """\
id: pick
title: Any largest entry
tolerance: {atol: 0, rtol: 0}
functions:
  run_pick: {entry: "student.pick:run_pick", params: [scores], reference: pick, check: any_max, dtype: int64}
cases:
  - id: tie
    inputs: {scores: {values: [[1.0, 3.0, 3.0, 0.0], [5.0, 1.0, 2.0, 5.0]]}}
""",
    "stages/pick/reference.py": """\
import numpy as np


def pick(scores):
    return np.argmax(scores, axis=-1)


def any_max(actual, scores):
    for row, (i, s) in enumerate(zip(actual, scores)):
        if s[int(i)] != s.max():
            return f"row {row}: index {int(i)} holds {s[int(i)]}, not the largest ({s.max()})"
    return None
""",
}
FILES["stages/words/decoys.py"] = """\
def upper(ids, vocab):
    words = {v: k for k, v in vocab.items()}
    return " ".join(words[int(i)] for i in ids).upper()
"""
for _name in ("words", "pick"):
    FILES[f"stages/{_name}/instructions.md"] = f"{_name}\n"


WORDS = FILES["stages/words/reference.py"].replace("def encode", "def run_encode")
WORDS = WORDS.replace("def decode", "def run_decode")


def test_text_outputs_and_json_inputs(tmp_path):
    course = course_from_files(tmp_path / "course", FILES, {"words": WORDS})
    assert grade.grade_stage(course, course.stage("words")).passed
    (course.root / "student" / "words.py").write_text(WORDS.replace('" ".join', '"-".join'))
    result = grade.grade_stage(course, course.stage("words"))
    dec = next(c for c in result.cases if c.case == "dec")
    assert dec.status is Status.FAIL and "text differs from character 3" in dec.comparisons[0].problem
    (course.root / "student" / "words.py").write_text(WORDS.replace("for i in ids)", "for i in ids).upper()"))
    dec = next(c for c in grade.grade_stage(course, course.stage("words")).cases if c.case == "dec")
    assert dec.diagnosis == "upper"
    (course.root / "student" / "words.py").write_text(WORDS.replace("return \" \".join", "return len").replace(
        "words[int(i)] for i in ids)", "[words[int(i)] for i in ids])"))
    dec = next(c for c in grade.grade_stage(course, course.stage("words")).cases if c.case == "dec")
    assert dec.status is Status.BAD_OUTPUT and "return text" in dec.message


def test_a_stage_check_accepts_any_right_answer_and_says_why_not(tmp_path):
    other = ("import numpy as np\n\n\ndef run_pick(scores):\n"
             "    return scores.shape[-1] - 1 - np.argmax(scores[:, ::-1], -1)\n")
    course = course_from_files(tmp_path / "course", FILES, {"pick": other})
    result = grade.grade_stage(course, course.stage("pick"))
    assert result.passed and any("acceptable answer" in n for c in result.cases for n in c.notes)
    (course.root / "student" / "pick.py").write_text("import numpy as np\n\n\ndef run_pick(scores):\n"
                                                     "    return np.argmin(scores, -1)\n")
    case = grade.grade_stage(course, course.stage("pick")).cases[0]
    assert case.status is Status.FAIL and case.comparisons[0].problem.startswith("row 0: index 3 holds 0.0")
