def run_double(x):
    raise NotImplementedError("run_double is not written yet")
