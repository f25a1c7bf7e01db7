def run_softmax(x):
    raise NotImplementedError("not written")
