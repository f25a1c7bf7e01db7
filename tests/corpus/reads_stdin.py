def run_double(x):
    answer = input("factor? ")
    return x * float(answer)
