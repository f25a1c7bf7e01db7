"""Peak memory of `--checkpoint` on a file the size of the real gpt2 model.safetensors, side by side.

    python bench/checkpoint_memory.py            # prints a table, writes bench/results/checkpoint_memory.json

Builds (in a temp folder) a synthetic checkpoint in the published gpt2 layout: 124,439,808 float32 parameters with
the real names and shapes, no key prefix, and the twelve h.N.attn.bias mask buffers [1, 1, 1024, 1024], about
548 MB. Then, each in a fresh interpreter so that peak RSS (ru_maxrss) speaks of that step alone:

- baseline: numpy, safetensors and the grader imported, nothing read;
- grade:    `grade_stage` of the checkpoint stage with `external.source_for(file)`, a correct learner solution
            that reads its tensors with safe_open (peak of the grader's process, and of the learner's forked child);
- read:     what the grader alone reads: `source_for` and every case's expected values, one case at a time
            (the float64 expected values are twice the float32 tensors they come from);
- load_all: `safetensors.numpy.load_file(file)`, the whole file in memory, for comparison.

"needed" is the most any one case needs at once: one block's four MLP tensors (18.9 MB for gpt2).
"""

from __future__ import annotations

import json
import platform
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
N_EMBD, N_LAYER, N_POSITIONS, VOCAB = 768, 12, 1024, 50257

STUDENT = {
    "gelu.py": "import math\nimport numpy as np\n\ndef run_gelu(x):\n"
               "    return 0.5 * x * (1 + np.tanh(math.sqrt(2 / math.pi) * (x + 0.044715 * x**3)))\n",
    "conv1d.py": "def run_conv1d(x, weight, bias):\n    return x @ weight + bias\n",
    "mlp.py": "from student.conv1d import run_conv1d\nfrom student.gelu import run_gelu\n\n"
              "def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):\n"
              "    return run_conv1d(run_gelu(run_conv1d(x, c_fc_weight, c_fc_bias)), c_proj_weight, c_proj_bias)\n",
    "checkpoint.py": "from safetensors import safe_open\nfrom student.mlp import run_mlp\n\n"
                     "def run_load_mlp_weights(checkpoint, layer):\n"
                     "    with safe_open(checkpoint, framework='numpy') as f:\n"
                     "        p = 'transformer.' if 'transformer.wte.weight' in f.keys() else ''\n"
                     "        return {k: f.get_tensor(f'{p}h.{layer}.mlp.{k}')\n"
                     "                for k in ('c_fc.weight', 'c_fc.bias', 'c_proj.weight', 'c_proj.bias')}\n\n"
                     "def run_checkpoint_mlp(checkpoint, layer, x):\n"
                     "    w = run_load_mlp_weights(checkpoint, layer)\n"
                     "    return run_mlp(x, w['c_fc.weight'], w['c_fc.bias'], w['c_proj.weight'], w['c_proj.bias'])\n",
}


def shapes() -> dict[str, tuple[int, ...]]:
    n = N_EMBD
    out: dict[str, tuple[int, ...]] = {"wte.weight": (VOCAB, n), "wpe.weight": (N_POSITIONS, n),
                                       "ln_f.weight": (n,), "ln_f.bias": (n,)}
    for i in range(N_LAYER):
        out.update({f"h.{i}.{k}": s for k, s in {
            "ln_1.weight": (n,), "ln_1.bias": (n,), "attn.c_attn.weight": (n, 3 * n), "attn.c_attn.bias": (3 * n,),
            "attn.c_proj.weight": (n, n), "attn.c_proj.bias": (n,), "ln_2.weight": (n,), "ln_2.bias": (n,),
            "mlp.c_fc.weight": (n, 4 * n), "mlp.c_fc.bias": (4 * n,), "mlp.c_proj.weight": (4 * n, n),
            "mlp.c_proj.bias": (n,), "attn.bias": (1, 1, N_POSITIONS, N_POSITIONS)}.items()})
    return out


def build(path: Path) -> None:
    import numpy as np
    from safetensors.numpy import save_file

    rng = np.random.default_rng(0)
    tensors = {}
    for name, shape in shapes().items():
        if name.endswith(".attn.bias"):
            tensors[name] = np.tril(np.ones(shape[-2:], dtype=np.float32))[None, None]
        else:
            tensors[name] = rng.standard_normal(shape, dtype=np.float32) * np.float32(0.02)
    save_file(tensors, str(path), metadata={"format": "pt"})


def peak() -> dict[str, float]:
    """Peak RSS in MB of this process and of its largest waited-for child (ru_maxrss is KiB on Linux)."""
    scale = 1 / 1024 if sys.platform != "darwin" else 1 / 2**20
    return {"self_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * scale,
            "child_mb": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * scale}


def measure(step: str, path: str, student: str) -> None:
    """Run one step in this (fresh) interpreter and print its peaks as JSON."""
    import numpy as np  # noqa: F401
    import safetensors.numpy

    from grader.course import load_course
    from grader.judge import external, grade

    t0 = time.perf_counter()
    extra: dict[str, object] = {}
    if step == "grade":
        course = load_course(ROOT)
        stage = course.stage("checkpoint")
        source = external.source_for(course, stage, Path(path))
        result = grade.grade_stage(course, stage, grade.Options(root=Path(student), source=source))
        extra = {"passed": result.passed, "cases": len(result.cases), "against": result.against}
    elif step == "read":
        course = load_course(ROOT)
        stage = course.stage("checkpoint")
        source = external.source_for(course, stage, Path(path))
        sizes = [sum(a.nbytes for a in source.expected(case).values()) for case in stage.cases]
        extra = {"largest_expected_mib": max(sizes) / 2**20}
    elif step == "load_all":
        tensors = safetensors.numpy.load_file(path)
        extra = {"tensors": len(tensors)}
    print(json.dumps({**peak(), **extra, "seconds": time.perf_counter() - t0}))


def run_step(step: str, path: Path, student: Path) -> dict[str, object]:
    out = subprocess.run([sys.executable, __file__, "--measure", step, str(path), str(student)], cwd=ROOT,
                         capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="bench-checkpoint-") as tmp:
        path = Path(tmp) / "model.safetensors"
        subprocess.run([sys.executable, __file__, "--build", str(path)], check=True)
        student = Path(tmp) / "learner"
        (student / "student").mkdir(parents=True)
        (student / "student" / "__init__.py").write_text("")
        for name, source in STUDENT.items():
            (student / "student" / name).write_text(source)
        file_mb = path.stat().st_size / 2**20
        needed_mb = 4 * (2 * N_EMBD * 4 * N_EMBD + 4 * N_EMBD + N_EMBD) / 2**20
        steps = {step: run_step(step, path, student) for step in ("baseline", "read", "grade", "load_all")}
    base = float(steps["baseline"]["self_mb"])  # type: ignore[arg-type]
    rows = [("grader reading (read)", float(steps["read"]["self_mb"])),  # type: ignore[arg-type]
            ("grader process (grade)", float(steps["grade"]["self_mb"])),  # type: ignore[arg-type]
            ("learner child (grade)", float(steps["grade"]["child_mb"])),  # type: ignore[arg-type]
            ("load_file, whole file", float(steps["load_all"]["self_mb"]))]  # type: ignore[arg-type]
    print(f"file {file_mb:.0f} MiB; tensors one case needs {needed_mb:.1f} MiB; baseline process {base:.0f} MiB")
    print(f"{'':26}{'peak RSS':>10}{'above base':>12}{'/ needed':>10}{'/ file':>9}")
    for label, mb in rows:
        above = mb - base
        print(f"{label:26}{mb:9.0f}M{above:11.0f}M{above / needed_mb:10.2f}{above / file_mb:9.3f}")
    print(f"grade: {steps['grade']['cases']} cases, passed {steps['grade']['passed']}, "
          f"{steps['grade']['seconds']:.2f} s; load_file {steps['load_all']['seconds']:.2f} s")
    results = {"file_mib": file_mb, "needed_mib": needed_mb, "baseline_mib": base, "steps": steps,
               "above_baseline_over_needed": {label: (mb - base) / needed_mb for label, mb in rows},
               "above_baseline_over_file": {label: (mb - base) / file_mb for label, mb in rows},
               "machine": {"python": platform.python_version(), "platform": platform.platform()}}
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "checkpoint_memory.json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--build"]:
        build(Path(sys.argv[2]))
    elif sys.argv[1:2] == ["--measure"]:
        sys.path.insert(0, str(ROOT))
        measure(sys.argv[2], sys.argv[3], sys.argv[4])
    else:
        main()
