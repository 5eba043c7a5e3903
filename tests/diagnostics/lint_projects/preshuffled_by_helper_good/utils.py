import random

import torch


def load_and_cache_examples(path, shuffle=True):
    features = torch.load(path)
    if shuffle:
        random.shuffle(features)
    return features
