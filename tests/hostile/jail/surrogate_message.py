"""Raise an exception whose message holds a lone surrogate (not encodable as UTF-8), and print one."""


def run_double(x):
    print("out \ud800 put")
    raise ValueError("bad \ud800 value")
