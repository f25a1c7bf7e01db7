"""Greedy generation at GPT-2 small's size: tokens per second with and without the key/value cache, side by side.

    python bench/generate.py            # 128 new tokens after 16 prompt tokens; writes bench/results/generate.json
    python bench/generate.py --new 32   # shorter, for a quick look

Builds (once, in a temp folder, never downloaded) a random checkpoint with GPT-2 small's names and shapes: n_embd
768, 12 blocks of 12 heads, 1024 positions, vocab 50257, 124,439,808 float32 parameters, drawn like the checkpoint
stage's fixture (weights N(0, 0.02), position embeddings N(0, 0.01), layer-norm gains 1 + N(0, 0.1), every bias
N(0, 0.02)). Then runs the course's plain numpy references in one process, on the same prompt:

- uncached: stages/generate/reference.py `generate`, the whole sequence through the model at every step;
- cached:   stages/kvcache/reference.py `generate_cached`, the prompt once, then one position per step;

and checks that both write the same tokens. BLAS gets the threads the grader gives a learner's code (the cores less
one, grader/run/threads.py), unless OPENBLAS_NUM_THREADS is set. Times are wall clock on this machine, which may be
shared: compare the two rows of one run, not runs on different days.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
import time
from pathlib import Path
from types import ModuleType

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(ROOT))

from grader.run import threads  # noqa: E402

threads.leave_a_core()  # BLAS threads as `python -m grader generate` has them, set before numpy loads

import numpy as np  # noqa: E402

from grader.course import load_course, stagecode  # noqa: E402

N_EMBD, N_LAYER, N_HEAD, N_POSITIONS, VOCAB = 768, 12, 12, 1024, 50257
SEED = 2019


def load(stage: str) -> ModuleType:
    """stages/<stage>/reference.py, imported as the grader imports it (its common/ modules with it)."""
    return stagecode.load(load_course(ROOT).stage(stage), "reference.py")


def random_gpt2_small(rng: np.random.RandomState) -> dict[str, np.ndarray]:
    """Every tensor of GPT-2 small, unprefixed, random at the fixture's scales."""
    n = N_EMBD

    def normal(scale: float, *shape: int) -> np.ndarray:
        return rng.normal(0.0, scale, size=shape).astype(np.float32)

    t = {"wte.weight": normal(0.02, VOCAB, n), "wpe.weight": normal(0.01, N_POSITIONS, n)}
    for i in range(N_LAYER):
        for ln in ("ln_1", "ln_2"):
            t[f"h.{i}.{ln}.weight"] = 1 + normal(0.1, n)
            t[f"h.{i}.{ln}.bias"] = normal(0.02, n)
        for name, shape in (("attn.c_attn", (n, 3 * n)), ("attn.c_proj", (n, n)), ("mlp.c_fc", (n, 4 * n)),
                            ("mlp.c_proj", (4 * n, n))):
            t[f"h.{i}.{name}.weight"] = normal(0.02, *shape)
            t[f"h.{i}.{name}.bias"] = normal(0.02, shape[1])
    t["ln_f.weight"] = 1 + normal(0.1, n)
    t["ln_f.bias"] = normal(0.02, n)
    return t


def checkpoint(folder: Path) -> Path:
    """model.safetensors of the random GPT-2 small in folder (built the first time)."""
    from safetensors.numpy import save_file

    path = folder / "model.safetensors"
    if not path.exists():
        tensors = random_gpt2_small(np.random.RandomState(SEED))
        save_file({"transformer." + k: v for k, v in tensors.items()}, str(path), metadata={"format": "pt"})
    return path


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--new", type=int, default=128, help="tokens to generate (default 128)")
    ap.add_argument("--prompt", type=int, default=16, help="prompt length in tokens (default 16)")
    ap.add_argument("--folder", type=Path, default=Path(tempfile.gettempdir()) / "gpt2-course-bench-124m",
                    help="where the random checkpoint is kept between runs")
    args = ap.parse_args(argv)
    from safetensors.numpy import load_file

    args.folder.mkdir(parents=True, exist_ok=True)
    t0 = time.perf_counter()
    path = checkpoint(args.folder)
    params = {k[len("transformer."):]: v for k, v in load_file(str(path)).items()}
    n_params = sum(v.size for v in params.values())
    print(f"random GPT-2 small: {n_params:,} float32 parameters, {path.stat().st_size / 1e6:,.0f} MB at {path} "
          f"({time.perf_counter() - t0:.1f} s to build or read)")
    generate, kvcache = load("generate"), load("kvcache")
    prompt = np.random.RandomState(1).randint(0, VOCAB, size=args.prompt)
    rows, outputs = {}, {}
    for label, fn in (("uncached", generate.generate), ("cached", kvcache.generate_cached)):
        start = time.perf_counter()
        outputs[label] = fn(prompt, params, N_HEAD, args.new)
        seconds = time.perf_counter() - start
        rows[label] = {"seconds": seconds, "tokens_per_second": args.new / seconds}
    same = bool((outputs["uncached"] == outputs["cached"]).all())
    print(f"{args.new} new tokens after a {args.prompt}-token prompt, float32 numpy, "
          f"{os.cpu_count()} CPUs visible, one process, BLAS threads {os.environ.get('OPENBLAS_NUM_THREADS')}")
    print(f"{'':10}{'seconds':>10}{'tokens/s':>11}")
    for label, r in rows.items():
        print(f"{label:10}{r['seconds']:10.2f}{r['tokens_per_second']:11.2f}")
    speedup = rows["uncached"]["seconds"] / rows["cached"]["seconds"]
    print(f"cache speed-up {speedup:.1f}x; same tokens: {same}")
    results = {"new_tokens": args.new, "prompt_tokens": args.prompt, "parameters": int(n_params), "rows": rows,
               "speedup": speedup, "same_tokens": same,
               "machine": {"python": platform.python_version(), "numpy": np.__version__,
                           "platform": platform.platform(), "cpus": os.cpu_count()}}
    (HERE / "results").mkdir(exist_ok=True)
    (HERE / "results" / "generate.json").write_text(json.dumps(results, indent=1) + "\n")


if __name__ == "__main__":
    main()
