def run_gelu(x):
    raise NotImplementedError("stub")
