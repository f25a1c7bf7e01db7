"""Text that breaks encoders and terminals: a lone surrogate and escape sequences in an exception message and in
printed output (the grader must store and show them as plain text)."""


def run_double(x):
    print("out \udcff put \x1b[2J\x1b]0;pwned\x07")
    raise ValueError("bad \ud800 value \x1b[31mred\x1b[0m")
