from torch.utils.data import WeightedRandomSampler


def sampler(weights):
    a = WeightedRandomSampler(weights, len(weights), replacement=False)  # FS107
    b = WeightedRandomSampler(weights, len(weights), False)  # FS107
    return a, b
