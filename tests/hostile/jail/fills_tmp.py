"""Write 512 MiB into /tmp, /var/tmp and /dev/shm (many files, so no single-file cap stops it)."""


def run_double(x):
    written = {}
    for folder in ("/tmp", "/var/tmp", "/dev/shm"):
        written[folder] = 0
        try:
            for i in range(512):
                with open(f"{folder}/litter-{i}", "wb") as f:
                    f.write(b"\0" * (1 << 20))
                written[folder] += 1
        except OSError as e:
            print(folder, type(e).__name__, e)
    print("WROTE MiB:", written)
    return 2 * x if max(written.values()) >= 512 else x * 0
