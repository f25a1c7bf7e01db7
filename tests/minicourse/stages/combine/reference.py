def combine(x, y):
    return 2 * x + y
