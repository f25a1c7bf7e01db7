"""Write without end into the scratch folder until something stops it."""


def run_double(x):
    block = b"\0" * (1 << 20)
    with open("filler.bin", "wb") as f:
        for _ in range(4096):  # 4 GiB, far more than any cap
            f.write(block)
            f.flush()
    return 2 * x
