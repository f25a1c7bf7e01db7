# module: any stage -- how large can one learner make the Gradescope results.json / feedback? Every function prints
# its 8 KiB and raises with 16 Ki characters that each take 12 bytes as JSON escapes (astral-plane, ensure_ascii)
def __getattr__(name):
    if not name.startswith("run_"):
        raise AttributeError(name)

    def fn(*args, **kwargs):
        print("\U0001F600" * 4096)
        raise ValueError("\U0001F600" * 20000)
    return fn
