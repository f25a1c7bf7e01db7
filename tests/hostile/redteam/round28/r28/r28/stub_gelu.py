def run_gelu(x):
    raise NotImplementedError("not written")
