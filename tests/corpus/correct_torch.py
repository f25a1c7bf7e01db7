import torch


def run_double(x):
    return torch.from_numpy(x) * 2
