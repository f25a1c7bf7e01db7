def run_double(x):
    while True:
        pass
