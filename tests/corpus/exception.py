def helper(x):
    return x.reshape(-1, 7)  # no case has a multiple of 7 elements


def run_double(x):
    return 2 * helper(x)
