# Round 29: an honest gelu that prints when each call starts and ends (wall clock), to see which passes overlap.
import time, numpy as np

def run_gelu(x):
    t0 = time.time()
    time.sleep(0.2)
    out = 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))
    print("GELU_CALL %.3f %.3f" % (t0, time.time()))
    return out
