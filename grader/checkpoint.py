"""`--checkpoint PATH`: grade a checkpoint stage against a real GPT-2 model.safetensors instead of the fixture.

The expected values are computed here, on the learner's machine, by the stage's reference, run on the given file
with floating inputs promoted to float64 (as `fixtures.build` does). Nothing of the file is read up front but its
JSON header: the shapes and dtypes of every GPT-2 tensor are checked from it, and the reference then reads only the
tensors a case needs (`safe_open` + `get_tensor`, one copy each), so the 548 MB gpt2 file is never held whole.

The case inputs are the fixture's, made again from their definitions in stage.yaml: the same generators, seeds and
shapes, except that the last axis of every generated or random array becomes the file's n_embd (so `x` is
[1, 8, 768] for gpt2 where the fixture model's is [1, 8, 64]). A file as wide as the fixture model gets exactly the
fixture's inputs.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import numpy as np

from grader import fixtures, stagecode
from grader.course import Case, Course, InputSpec, Stage
from grader.errors import FixtureError, UsageError

SUFFIX = ".safetensors"
PREFIX = "transformer."  # GPT2LMHeadModel.save_pretrained; the published gpt2 file and GPT2Model have none
WHERE = "the model.safetensors of a GPT-2 model, e.g. from https://huggingface.co/openai-community/gpt2"


def is_checkpoint_stage(stage: Stage) -> bool:
    """Whether some case of the stage reads a .safetensors file that the fixture build writes."""
    return any(s.kind == "artifact" and str(s.spec["artifact"]).endswith(SUFFIX)
               for c in stage.cases for s in c.inputs)


def source_for(course: Course, stage: Stage, path: Path | str) -> CheckpointSource:
    """A source of case data (inputs, expected outputs, dtypes) for `stage`, computed from the file at `path`."""
    if not is_checkpoint_stage(stage):
        ids = [s.id for s in course.stages if is_checkpoint_stage(s)]
        which = f"`python -m grader --stage {ids[0]} --checkpoint {path}`" if ids else "a stage that reads one"
        raise UsageError(f"--checkpoint {path}: stage '{stage.id}' does not read a checkpoint, so there is nothing "
                         f"to grade against it; use {which}")
    if not (stage.dir / "reference.py").exists():
        raise UsageError(f"--checkpoint {path}: grading against your own checkpoint computes the expected values "
                         "with the stage's reference solution, which this copy of the course does not ship (a "
                         "learners' handout); grade the stage without --checkpoint")
    return CheckpointSource(stage, GPT2File.open(Path(path)))


class GPT2File:
    """A safetensors file whose header was checked to hold every GPT-2 tensor in the Hugging Face layout."""

    def __init__(self, path: Path, prefix: str, n_embd: int, n_layer: int, n_inner: int) -> None:
        self.path, self.prefix, self.n_embd, self.n_layer, self.n_inner = path, prefix, n_embd, n_layer, n_inner

    @classmethod
    def open(cls, given: Path) -> GPT2File:
        path = given.expanduser().resolve()
        if path.is_dir() and (path / "model.safetensors").is_file():
            path = path / "model.safetensors"  # a Hugging Face model folder
        if not path.is_file():
            what = "is a folder without a model.safetensors" if path.is_dir() else "does not exist"
            raise UsageError(f"--checkpoint {given}: {what}. Pass {WHERE}.")
        header = _header(path)
        keys = set(header)
        if PREFIX + "wte.weight" in keys:
            prefix = PREFIX
        elif "wte.weight" in keys:
            prefix = ""
        else:
            raise UsageError(f"--checkpoint {path}: a safetensors file, but not a GPT-2 checkpoint: it has no "
                             f"'wte.weight' (token embedding), with or without the '{PREFIX}' prefix. Its first keys: "
                             f"{', '.join(sorted(keys)[:5]) or 'none'}. Pass {WHERE}.")
        n_embd = int(header[prefix + "wte.weight"][1][-1])
        layers = {int(m.group(1)) for k in keys if (m := re.match(re.escape(prefix) + r"h\.(\d+)\.", k))}
        n_layer = next(i for i in range(len(layers) + 1) if i not in layers)
        c_fc = header.get(f"{prefix}h.0.mlp.c_fc.weight", ("", [n_embd, 4 * n_embd]))[1]
        n_inner = int(c_fc[-1]) if len(c_fc) == 2 else 4 * n_embd
        gpt2 = cls(path, prefix, n_embd, n_layer, n_inner)
        gpt2._check(header)
        return gpt2

    def expected_shapes(self) -> dict[str, tuple[int, ...]]:
        """Every tensor GPT-2 has (unprefixed name -> shape), for this width and depth."""
        n, k = self.n_embd, self.n_inner
        shapes: dict[str, tuple[int, ...]] = {"wte.weight": (-1, n), "wpe.weight": (-1, n),
                                              "ln_f.weight": (n,), "ln_f.bias": (n,)}
        for i in range(self.n_layer):
            block = {"ln_1.weight": (n,), "ln_1.bias": (n,), "attn.c_attn.weight": (n, 3 * n),
                     "attn.c_attn.bias": (3 * n,), "attn.c_proj.weight": (n, n), "attn.c_proj.bias": (n,),
                     "ln_2.weight": (n,), "ln_2.bias": (n,), "mlp.c_fc.weight": (n, k), "mlp.c_fc.bias": (k,),
                     "mlp.c_proj.weight": (k, n), "mlp.c_proj.bias": (n,)}
            shapes.update({f"h.{i}.{name}": shape for name, shape in block.items()})
        return shapes

    def _check(self, header: dict[str, tuple[str, list[int]]]) -> None:
        if self.n_layer == 0:
            raise UsageError(f"--checkpoint {self.path}: has embeddings but no transformer blocks "
                             f"('{self.prefix}h.0.ln_1.weight' and so on). Pass {WHERE}.")
        missing, wrong, dtypes = [], [], set()
        for name, want in self.expected_shapes().items():
            key = self.prefix + name
            if key not in header:
                missing.append(key)
                continue
            dtype, shape = header[key]
            dtypes.add(dtype)
            if len(shape) != len(want) or any(w not in (-1, s) for w, s in zip(want, shape, strict=False)):
                wrong.append(f"{key} is {list(shape)}, expected {[w if w >= 0 else 'any' for w in want]}")
        if missing:
            raise UsageError(f"--checkpoint {self.path}: not a complete GPT-2 checkpoint: {len(missing)} tensors "
                             f"are missing, such as {', '.join(missing[:3])}. Pass {WHERE}.")
        if wrong:
            linear = any("mlp.c_fc.weight" in w for w in wrong)
            why = (" (weights stored [out, in], as nn.Linear does: GPT-2 checkpoints store Conv1D weights [in, out])"
                   if linear else "")
            raise UsageError(f"--checkpoint {self.path}: tensors have shapes GPT-2 does not use{why}: "
                             f"{'; '.join(wrong[:3])}. Pass {WHERE}.")
        if dtypes != {"F32"}:
            raise UsageError(f"--checkpoint {self.path}: holds {', '.join(sorted(dtypes))} tensors; this stage grades "
                             "float32 checkpoints (F32), such as the published gpt2 model.safetensors. Convert it "
                             "to float32, or pass that file.")

    def describe(self) -> str:
        size = self.path.stat().st_size
        layout = f"keys prefixed '{self.prefix}'" if self.prefix else "unprefixed keys"
        return (f"{self.path} ({size / 1e6:,.0f} MB, {layout}, n_embd {self.n_embd}, {self.n_layer} blocks; "
                "expected values computed by the reference on this machine)")


def _header(path: Path) -> dict[str, tuple[str, list[int]]]:
    """Name -> (dtype, shape) for every tensor, read from the file's header alone."""
    from safetensors import safe_open

    try:
        with safe_open(str(path), framework="numpy") as f:
            out = {}
            for key in f.keys():
                tensor = f.get_slice(key)
                out[key] = (str(tensor.get_dtype()), [int(d) for d in tensor.get_shape()])
            return out
    except OSError as e:
        raise UsageError(f"--checkpoint {path}: cannot read it: {e.strerror or e}")
    except Exception as e:  # safetensors raises its own SafetensorError for anything malformed  # noqa: BLE001
        with path.open("rb") as raw:
            start = raw.read(4)
        kind = {b"PK\x03\x04": " (it looks like a PyTorch pytorch_model.bin, a zip of pickles)",
                b"\x89HDF": " (it looks like an HDF5 / Keras .h5 file)"}.get(start, "")
        raise UsageError(f"--checkpoint {path}: not a safetensors file{kind}: {e}. Pass {WHERE}.")


class CheckpointSource:
    """Case data for a checkpoint stage, from a real file: what `grade.grade_stage` reads from fixtures otherwise."""

    def __init__(self, stage: Stage, gpt2: GPT2File) -> None:
        self.stage, self.file = stage, gpt2
        self._inputs: dict[str, dict[str, Any]] = {}
        self.widened = False  # whether inputs were made at another n_embd than the fixture's
        for case in stage.cases:
            layer = next((s.spec["value"] for s in case.inputs if s.name == "layer" and s.kind == "value"), None)
            if isinstance(layer, int) and not 0 <= layer < gpt2.n_layer:
                raise UsageError(f"--checkpoint {gpt2.path}: has {gpt2.n_layer} blocks, but case '{case.id}' of "
                                 f"{stage.file} reads block {layer}; use a GPT-2 with at least {layer + 1} blocks")
        self.against = gpt2.describe() + (f"; inputs made at width {gpt2.n_embd}" if self._widths() else "")

    def _widths(self) -> bool:
        return any(self._spec(s) is not s for c in self.stage.cases for s in c.inputs)

    def _spec(self, spec: InputSpec) -> InputSpec:
        """The input's definition with its last axis set to the file's n_embd (generated and random arrays)."""
        shape = spec.spec.get("shape")
        if spec.kind not in ("random", "generate") or not shape or shape[-1] == self.file.n_embd:
            return spec
        return InputSpec(spec.name, spec.kind, {**spec.spec, "shape": [*shape[:-1], self.file.n_embd]})

    def inputs(self, case: Case) -> dict[str, Any]:
        """The case's inputs, with the given file in place of the fixture's checkpoint."""
        if case.id not in self._inputs:
            out: dict[str, Any] = {}
            for spec in case.inputs:
                if spec.kind == "artifact":
                    name = str(spec.spec["artifact"])
                    out[spec.name] = str(self.file.path if name.endswith(SUFFIX) else self.file.path.parent / name)
                else:
                    out[spec.name] = fixtures.make_input(self.stage, self._spec(spec), self.file.path.parent)
            self._inputs[case.id] = out
        return dict(self._inputs[case.id])

    def expected(self, case: Case) -> dict[str, np.ndarray]:
        """The reference's output on this file, as float64 arrays (computed now, not cached)."""
        reference = stagecode.reference(self.stage, case.function)
        try:
            result = reference(**{k: fixtures.upcast(v) for k, v in self.inputs(case).items()})
        except Exception as e:
            raise FixtureError(f"{self.stage.dir / 'reference.py'}: the reference failed on case '{case.id}' with "
                               f"{self.file.path}: {type(e).__name__}: {e}") from e
        fn = self.stage.function(case.function)
        if fn.returns == "dict" and isinstance(result, dict) and set(result) == set(fn.keys):
            # one tensor at a time: its float32 copy is let go as soon as its float64 one exists
            return {key: np.asarray(result.pop(key), dtype=np.float64) for key in fn.keys}
        return fixtures.outputs_of(self.stage, case, result)

    def dtype(self, case: Case) -> str | None:
        return fixtures.output_dtype(self.stage, case, self.inputs(case))
