"""How the course's small GPT-2 and its tokenizer were made: Python's own documentation, a byte-level BPE, a tiny
GPT-2 trained with torch. Run through build.py:

    python stages/generate/build.py --gather   # corpus.jsonl.gz from the running interpreter (seconds)
    python stages/generate/build.py --train    # tokenizer and model from that corpus (minutes: see training.json)

The corpus is every docstring of the standard library's Python sources (modules, classes, functions; found with
`ast`, so nothing is imported), the docstrings of the builtins, and pydoc's help topics (`pydoc_data.topics`, the
language reference as `help("FOR")` shows it). All of it is Python's own text under the PSF licence. It is
committed (artifacts-src/corpus.jsonl.gz) so `--train` gives the same bytes on another Python version; `--gather`
remakes it from whichever interpreter runs it.

Training is seeded (numpy RandomState for the batches, torch.manual_seed for the initialisation), runs with
torch's deterministic algorithms on a fixed number of threads and a fixed number of steps, and writes every file
byte for byte the same on the same machine kind and library versions; `training.json` records those versions, the
sha256 of each file, the losses and a greedy sample. torch, transformers and tokenizers come with the test extra.
"""

from __future__ import annotations

import ast
import gzip
import hashlib
import json
import math
import resource
import sys
import sysconfig
import time
from pathlib import Path

import numpy as np

from common.bpe import bytes_to_unicode  # GPT-2's byte table, as the tokenizer stage's reference has it

SEED = 2019
N_EMBD, N_LAYER, N_HEAD, N_POSITIONS = 128, 2, 4, 128
VOCAB_SIZE = 2048  # 256 byte tokens + 1791 merges + <|endoftext|>
EOT = "<|endoftext|>"
STEPS, BATCH, LR, WARMUP = 1000, 16, 2e-3, 20
THREADS = 2
MAX_CHARS = 2_500_000  # the corpus's cap (it is about 2 MB)
SKIP = {"test", "tests", "idlelib", "turtledemo", "lib2to3", "tkinter", "ensurepip", "encodings", "site-packages",
        "dist-packages", "__phello__"}
MODEL_FILES = ("model.safetensors", "config.json", "vocab.json", "merges.txt", "tokenizer_config.json")


# --- the corpus -----------------------------------------------------------------------------------------------

def gather():
    """Python's documentation from the running interpreter, in a fixed order, each text once."""
    import builtins
    from pydoc_data.topics import topics

    texts, seen = [], set()

    def add(doc):
        if doc and len(doc) >= 20 and doc not in seen:
            seen.add(doc)
            texts.append(doc)

    for name in sorted(dir(builtins)):  # the builtins are C code: their docstrings are only found by asking
        obj = getattr(builtins, name)
        add(getattr(obj, "__doc__", None) if not isinstance(obj, str | int | float | bool | type(None)) else None)
        if isinstance(obj, type):
            for attr in sorted(vars(obj)):
                add(getattr(vars(obj)[attr], "__doc__", None))
    root = Path(sysconfig.get_paths()["stdlib"])
    for path in sorted(root.rglob("*.py")):
        if SKIP & set(path.relative_to(root).parts):
            continue
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError, ValueError):
            continue  # a few stdlib files are deliberately broken (lib2to3 data, bad-encoding samples)
        for node in ast.walk(tree):
            if isinstance(node, ast.Module | ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                add(ast.get_docstring(node, clean=True))
    for key in sorted(topics):
        add(topics[key].strip())
    out, total = [], 0
    for text in texts:
        if total + len(text) > MAX_CHARS:
            break
        out.append(text)
        total += len(text)
    return out


def write_corpus(texts, path):
    data = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in texts).encode("utf-8")
    with open(path, "wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as f:
        f.write(data)  # mtime 0 and no name: the same texts give the same bytes


def read_corpus(path):
    with gzip.open(path, "rt", encoding="utf-8") as f:
        return [json.loads(line) for line in f]


# --- the tokenizer ---------------------------------------------------------------------------------------------

def train_tokenizer(texts):
    """A byte-level BPE in GPT-2's layout: ids 0-255 the bytes (bytes_to_unicode order), then one id per merge in
    rank order, then <|endoftext|>. Trained by `tokenizers` with GPT-2's pre-tokenisation regex."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_SIZE - 1, show_progress=False,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet())
    tok.train_from_iterator(texts, trainer)
    merges = [tuple(m.split(" ")) if isinstance(m, str) else tuple(m)
              for m in json.loads(tok.to_str())["model"]["merges"]]
    vocab = {c: i for i, c in enumerate(bytes_to_unicode().values())}
    for a, b in merges:
        assert a in vocab and b in vocab and a + b not in vocab, (a, b)
        vocab[a + b] = len(vocab)
    vocab[EOT] = len(vocab)
    assert len(vocab) == VOCAB_SIZE, len(vocab)
    return vocab, merges


def write_tokenizer(vocab, merges, dest):
    by_id = sorted(vocab.items(), key=lambda item: item[1])
    lines = ",\n".join(f"{json.dumps(token, ensure_ascii=False)}: {i}" for token, i in by_id)
    (dest / "vocab.json").write_text("{\n" + lines + "\n}\n", encoding="utf-8")
    (dest / "merges.txt").write_text("#version: 0.2\n" + "".join(f"{a} {b}\n" for a, b in merges), encoding="utf-8")
    config = {"tokenizer_class": "GPT2Tokenizer", "model_max_length": N_POSITIONS, "add_prefix_space": False,
              "bos_token": EOT, "eos_token": EOT, "unk_token": EOT, "clean_up_tokenization_spaces": False}
    (dest / "tokenizer_config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")


def fast_tokenizer(dest):
    from transformers import GPT2TokenizerFast

    return GPT2TokenizerFast(str(dest / "vocab.json"), str(dest / "merges.txt"))  # transformers 5: vocab, merges


# --- the model -------------------------------------------------------------------------------------------------

def config():
    """config.json as Hugging Face writes it for GPT-2 (the keys a loader reads); no dropout."""
    return {"architectures": ["GPT2LMHeadModel"], "model_type": "gpt2", "activation_function": "gelu_new",
            "n_embd": N_EMBD, "n_head": N_HEAD, "n_layer": N_LAYER, "n_positions": N_POSITIONS, "n_ctx": N_POSITIONS,
            "n_inner": None, "vocab_size": VOCAB_SIZE, "layer_norm_epsilon": 1e-05, "initializer_range": 0.02,
            "attn_pdrop": 0.0, "embd_pdrop": 0.0, "resid_pdrop": 0.0, "bos_token_id": VOCAB_SIZE - 1,
            "eos_token_id": VOCAB_SIZE - 1, "tie_word_embeddings": True, "torch_dtype": "float32"}


def token_stream(texts, tokenizer):
    """Every text's ids, each text preceded by <|endoftext|> (as GPT-2 was trained), in one int64 array."""
    eot = tokenizer.convert_tokens_to_ids(EOT)
    ids = [eot]
    for enc in tokenizer(texts)["input_ids"]:
        ids.extend(enc)
        ids.append(eot)
    return np.array(ids, dtype=np.int64)


def train_model(stream, steps=STEPS, log=print):
    """GPT2LMHeadModel trained on random 129-token windows of the stream; returns (model, record)."""
    import torch
    from transformers import GPT2Config, GPT2LMHeadModel

    torch.set_num_threads(THREADS)
    torch.use_deterministic_algorithms(True)
    torch.manual_seed(SEED)
    cfg = GPT2Config(**{k: v for k, v in config().items() if k not in ("architectures", "torch_dtype")})
    model = GPT2LMHeadModel(cfg)
    n_val = len(stream) // 50  # the last 2% of the stream is held out
    train, val = stream[:-n_val], stream[-n_val:]
    rng = np.random.RandomState(SEED)
    opt = torch.optim.AdamW(model.parameters(), lr=LR, betas=(0.9, 0.95), weight_decay=0.01)

    def lr_at(step):  # linear warm-up, cosine decay to a tenth
        if step < WARMUP:
            return LR * (step + 1) / WARMUP
        return LR * (0.1 + 0.45 * (1 + math.cos(math.pi * (step - WARMUP) / (steps - WARMUP))))

    def loss_of(batch):
        x = torch.from_numpy(batch)
        logits = model(input_ids=x[:, :-1]).logits
        return torch.nn.functional.cross_entropy(logits.reshape(-1, logits.shape[-1]), x[:, 1:].reshape(-1))

    def windows(source, starts):
        return np.stack([source[s:s + N_POSITIONS + 1] for s in starts])

    start, cpu, losses = time.perf_counter(), _cpu_seconds(), []
    model.train()
    for step in range(steps):
        for group in opt.param_groups:
            group["lr"] = lr_at(step)
        loss = loss_of(windows(train, rng.randint(0, len(train) - N_POSITIONS - 1, size=BATCH)))
        opt.zero_grad()
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        losses.append(loss.item())
        if step % 100 == 0 or step == steps - 1:
            log(f"step {step:4d}  loss {loss.item():.3f}  lr {lr_at(step):.2e}  {time.perf_counter() - start:5.0f} s")
    seconds, cpu = time.perf_counter() - start, _cpu_seconds() - cpu
    model.eval()
    with torch.no_grad():
        starts = np.arange(0, len(val) - N_POSITIONS - 1, N_POSITIONS)[:64]
        val_loss = float(np.mean([float(loss_of(windows(val, starts[i:i + 16]))) for i in range(0, len(starts), 16)]))
    record = {"steps": steps, "batch": BATCH, "window": N_POSITIONS, "lr": LR, "warmup": WARMUP, "seed": SEED,
              "threads": THREADS, "seconds": round(seconds, 1), "cpu_seconds": round(cpu, 1),
              "tokens_seen": steps * BATCH * N_POSITIONS,
              "loss_first_20": round(float(np.mean(losses[:20])), 3),
              "loss_last_20": round(float(np.mean(losses[-20:])), 3), "val_loss": round(val_loss, 3),
              "parameters": sum(p.numel() for p in model.parameters())}
    return model, record


def _cpu_seconds():
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def write_model(model, dest):
    """model.safetensors with GPT2LMHeadModel.save_pretrained's names (prefix `transformer.`, lm_head tied to wte
    so not stored) and config.json."""
    from safetensors.torch import save_file

    tensors = {k: v.detach().contiguous().clone() for k, v in model.state_dict().items()
               if k.startswith("transformer.") and not k.endswith((".attn.bias", ".attn.masked_bias"))}
    save_file(tensors, str(dest / "model.safetensors"), metadata={"format": "pt"})
    (dest / "config.json").write_text(json.dumps(config(), indent=2, sort_keys=True) + "\n", encoding="utf-8")


def greedy_sample(dest, prompt, n_new):
    """transformers' own greedy decoding on the written files: (prompt + continuation text, new ids)."""
    import torch
    from transformers import GPT2LMHeadModel

    tok = fast_tokenizer(dest)
    model = GPT2LMHeadModel.from_pretrained(str(dest)).eval()
    model.generation_config.eos_token_id = None  # go on past <|endoftext|>, as the stages' generation does
    ids = tok(prompt, return_tensors="pt")["input_ids"]
    with torch.no_grad():
        out = model.generate(ids, max_new_tokens=n_new, do_sample=False, pad_token_id=VOCAB_SIZE - 1)
    return tok.decode(out[0], clean_up_tokenization_spaces=False), out[0, ids.shape[1]:].tolist()


def sha256(path):
    return hashlib.sha256(path.read_bytes()).hexdigest()


def versions():
    import tokenizers
    import torch
    import transformers

    return {"python": sys.version.split()[0], "numpy": np.__version__, "torch": torch.__version__,
            "transformers": transformers.__version__, "tokenizers": tokenizers.__version__}


def run_gather(dest):
    texts = gather()
    write_corpus(texts, dest / "corpus.jsonl.gz")
    print(f"{len(texts)} texts, {sum(map(len, texts)):,} characters from Python {sys.version.split()[0]} "
          f"-> {dest / 'corpus.jsonl.gz'}")


def run_train(dest, steps=STEPS):
    texts = read_corpus(dest / "corpus.jsonl.gz")
    vocab, merges = train_tokenizer(texts)
    write_tokenizer(vocab, merges, dest)
    stream = token_stream(texts, fast_tokenizer(dest))
    print(f"corpus: {len(texts)} texts, {sum(map(len, texts)):,} characters, {len(stream):,} tokens")
    model, record = train_model(stream, steps)
    write_model(model, dest)
    sample, _ = greedy_sample(dest, "Return the", 32)
    record = {"versions": versions(),
              "corpus": {"texts": len(texts), "characters": sum(map(len, texts)), "tokens": len(stream),
                         "sha256": sha256(dest / "corpus.jsonl.gz")},
              "config": {k: config()[k] for k in ("n_embd", "n_layer", "n_head", "n_positions", "vocab_size")},
              "training": record, "greedy_sample": sample,
              "sha256": {name: sha256(dest / name) for name in MODEL_FILES}}
    (dest / "training.json").write_text(json.dumps(record, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(json.dumps(record, indent=2, ensure_ascii=False))
