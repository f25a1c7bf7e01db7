def run_double(x):
    return "2x"
