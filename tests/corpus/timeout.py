def run_double(x):
    while True: pass  # one line: a timeout names the same line whichever bytecode it stopped on
