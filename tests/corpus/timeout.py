# The loop is on one line: a timeout names the same line whichever bytecode it stopped on.
def run_double(x):
    while True: pass
