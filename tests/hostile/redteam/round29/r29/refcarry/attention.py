# Round 29: attention, graded last with softmax's reference only (softmax a stub; conv1d the learner's own, passing).
# Its run holds no gelu reference: it prints what the page cache says, and what its own student/ holds.
import numpy as np
from student import chan


def run_attention(x, c_attn_weight, c_attn_bias, c_proj_weight, c_proj_bias, n_head):
    cut = open("/submission/student/_course_common_gpt2.py", "rb").read()
    gelu = open("/submission/student/gelu.py", "rb").read()
    print("HOLDS def gelu in its own cut:", b"def gelu" in cut, "| its gelu.py:", gelu[:40])
    print("RECEIVED:", chan.receive(64))
    return np.zeros_like(x)
