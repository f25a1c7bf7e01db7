def plus_two(x):
    return x + 2


def square(x):
    return x * x
