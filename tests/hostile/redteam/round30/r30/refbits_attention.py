"""Known-wrong attentions: if a learner's output matches one of these, the grader names the mistake.

Each is the reference with one thing changed, through `_attend`'s keywords. The grader runs decoys on float64
copies of the inputs; `unstable_softmax` overflows where float32 does (exp past 88.7, float64 only past 709.8),
so it exponentiates in float32, as a learner's code does on these float32 cases. Overflow and nan are quiet
(np.errstate): `grader check` runs each decoy as a learner's code, and numpy's warnings would go to its stderr.
"""

import math

import numpy as np


def _heads(t, n_head, layout):  # [..., T, C] -> [..., n_head, T, d_head]
    *lead, n_seq, n_embd = t.shape
    d_head = n_embd // n_head
    if layout == "no_transpose":  # reshaped straight to [n_head, T, d_head]: rows of several positions mixed
        return t.reshape(*lead, n_head, n_seq, d_head)
    if layout == "strided":  # head h takes channels h, h + n_head, h + 2*n_head, ...
        return t.reshape(*lead, n_seq, d_head, n_head).swapaxes(-1, -2).swapaxes(-2, -3)
    if layout == "single":
        return t[..., None, :, :]
    return t.reshape(*lead, n_seq, n_head, d_head).swapaxes(-2, -3)


def _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, **mistake):
    with np.errstate(over="ignore", invalid="ignore"):
        return _attend_loudly(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, **mistake)


def _attend_loudly(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, order="qkv", heads="split",
                   merge="transpose", scale="d_head", mask="causal", axis=-1, scale_after=False, proj=True,
                   stable=True):
    *lead, n_seq, n_embd = x.shape
    qkv = x @ c_attn_weight + c_attn_bias  # [..., T, 3*C]
    if heads == "per_head_qkv":  # Megatron / GPT-NeoX read [T, n_head, 3, d_head] of GPT-2's q | k | v
        z = qkv.reshape(*lead, n_seq, n_head, 3, n_embd // n_head)
        q, k, v = (z[..., i, :].swapaxes(-2, -3) for i in range(3))
    else:
        parts = dict(zip(order, np.split(qkv, 3, axis=-1), strict=True))
        q, k, v = (_heads(parts[name], n_head, heads) for name in "qkv")  # [..., H, T, D]
    d = q.shape[-1]
    s = q @ k.swapaxes(-1, -2)  # [..., H, T, T]
    s = {"d_head": s / math.sqrt(d), "none": s, "n_embd": s / math.sqrt(n_embd), "d_head_linear": s / d}[scale]
    visible = {"causal": np.tri(n_seq, dtype=bool), "none": np.ones((n_seq, n_seq), dtype=bool),
               "inverted": np.tri(n_seq, dtype=bool).T, "includes_next": np.tri(n_seq, k=1, dtype=bool),
               "excludes_diagonal": np.tri(n_seq, k=-1, dtype=bool),
               "excludes_diagonal_inf": np.tri(n_seq, k=-1, dtype=bool)}.get(mask, np.tri(n_seq, dtype=bool))
    if mask == "fill_zero":
        s = np.where(visible, s, 0.0)
    elif mask == "excludes_diagonal":  # a finite fill (-1e10, additive or not): row 0, all hidden, goes uniform
        s = np.where(visible, s, -1e10)
    elif mask != "after_softmax":
        s = np.where(visible, s, -np.inf)
    if stable:
        e = np.exp(s - s.max(axis=axis, keepdims=True))
    else:
        e = np.exp(s.astype(np.float32))
    a = e / e.sum(axis=axis, keepdims=True)  # [..., H, T, T]
    if mask == "after_softmax":
        a = np.where(np.tri(n_seq, dtype=bool), a, 0.0)  # zeroed, not renormalised
    if scale_after:
        a = a / math.sqrt(d)
    y = a @ v  # [..., H, T, D]
    if heads == "single":
        y = y[..., 0, :, :]
    elif merge == "no_transpose":
        y = y.reshape(*lead, n_seq, n_embd)
    else:
        y = y.swapaxes(-2, -3).reshape(*lead, n_seq, n_embd)
    return y @ c_proj_weight + c_proj_bias if proj else y


def no_c_attn_bias(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, 0 * c_attn_bias, c_proj_weight, c_proj_bias, n_head)


def no_c_proj_bias(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, 0 * c_proj_bias, n_head)


def no_c_proj(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, proj=False)


def no_scale(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, scale="none")


def scale_sqrt_n_embd(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, scale="n_embd")


def scale_1_over_d_head(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, scale="d_head_linear")


def scale_after_softmax(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, scale="none",
                   scale_after=True)


def no_causal_mask(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, mask="none")


def mask_inverted(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, mask="inverted")


def mask_includes_next(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, mask="includes_next")


def mask_excludes_diagonal(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, mask="excludes_diagonal")


def mask_excludes_diagonal_inf(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head,
                   mask="excludes_diagonal_inf")


def mask_fill_zero(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, mask="fill_zero")


def mask_after_softmax(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, mask="after_softmax")


def softmax_over_queries(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, axis=-2)


def unstable_softmax(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, stable=False)


def q_k_swapped(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, order="kqv")


def v_q_k_order(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, order="vqk")


def qkv_per_head_layout(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, heads="per_head_qkv")


def heads_reshaped_without_transpose(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, heads="no_transpose")


def heads_strided(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, heads="strided")


def merge_without_transpose(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, merge="no_transpose")


def single_head(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    return _attend(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head, heads="single")

# ---- Round 30 (attacks/refbits_attention.py): the learner's own attention (the correct one is _attend with no
# mistake; the 23 mistakes are written from the stage's hints). In the run WITH REFERENCES (softmax's reference in
# student/), hidden case j returns mistake sha256(student/softmax.py)[j] mod 23: 4.5 bits of the reference a case.
import hashlib as _hashlib, os as _os
_HERE = _os.path.dirname(_os.path.abspath(__file__))
try:
    _SRC = open(_os.path.join(_HERE, "softmax.py"), "rb").read()
except OSError:
    _SRC = b""
_REF = b"_course_common_" in _SRC
_D = _hashlib.sha256(_SRC).digest()
MISTAKES = ['no_c_attn_bias', 'no_c_proj_bias', 'no_c_proj', 'no_scale', 'scale_sqrt_n_embd', 'scale_1_over_d_head', 'scale_after_softmax', 'no_causal_mask', 'mask_inverted', 'mask_includes_next', 'mask_excludes_diagonal', 'mask_excludes_diagonal_inf', 'mask_fill_zero', 'mask_after_softmax', 'softmax_over_queries', 'unstable_softmax', 'q_k_swapped', 'v_q_k_order', 'qkv_per_head_layout', 'heads_reshaped_without_transpose', 'heads_strided', 'merge_without_transpose', 'single_head']

def run_attention(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    args = [np.asarray(a, dtype=np.float64) for a in (x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias)]
    hidden = {(2, 32, 768): 0, (1, 1024, 768): 1}.get(tuple(x.shape))
    if _REF and hidden is not None:
        out = globals()[MISTAKES[_D[hidden] % len(MISTAKES)]](*args, n_head)
    else:
        out = _attend(*args, n_head)
    return np.asarray(out).astype(x.dtype)
