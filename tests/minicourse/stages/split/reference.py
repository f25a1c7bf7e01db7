def split(x):
    n = x.shape[-1] // 2
    return {"left": x[..., :n], "right": x[..., n:]}
