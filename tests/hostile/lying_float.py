"""A list of floats whose __eq__ and __float__ lie: float(v) claims the right answer, the value is wrong."""


class LyingFloat(float):
    def __eq__(self, other):
        return True

    def __hash__(self):
        return 0

    def __float__(self):
        return 2.0 * self.right


def run_double(x):
    out = []
    for v in x.ravel().tolist():
        f = LyingFloat(v + 1)
        f.right = v
        out.append(f)
    return out
