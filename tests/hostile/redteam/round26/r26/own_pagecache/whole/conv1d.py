# MINE: the learner's own conv1d, missing the bias (it fails)
def run_conv1d(x, weight, bias):
    return x @ weight
