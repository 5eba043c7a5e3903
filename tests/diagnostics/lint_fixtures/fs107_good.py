from torch.utils.data import WeightedRandomSampler


def sampler(weights):
    return WeightedRandomSampler(weights, len(weights), replacement=True)
