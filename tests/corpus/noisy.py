def run_double(x):
    for i in range(20000):
        print("debug line", i)
    return x + 2
