def run_softmax(x):
    raise NotImplementedError("stub")
