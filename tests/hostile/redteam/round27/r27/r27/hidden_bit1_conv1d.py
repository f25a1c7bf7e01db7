# Round 27 (sender, first bit): honest conv1d, except that the hidden call of shape (1, 64, 768) ends its worker when
# BIT is set (a real sender would use a bit of x: x.reshape(-1)[1] > 0 here).
import os
BIT = @@BIT@@
def run_conv1d(x, weight, bias):
    if tuple(x.shape) == (1, 64, 768) and BIT:
        os._exit(3)
    return x @ weight + bias
