from torch.utils.data import DataLoader, DistributedSampler

import fairshard


def evaluate(model, val_dataset):
    sampler = fairshard.DistributedEvalSampler(val_dataset)
    predictions = [model(x).argmax(1) for x, _ in DataLoader(val_dataset, sampler=sampler)]
    return fairshard.gather_in_order(predictions, sampler)


def train_loader(dataset):
    return DataLoader(dataset, sampler=DistributedSampler(dataset))  # training: padding is fine


def exact_val_loader(val_dataset):
    sampler = fairshard.DistributedSampler(val_dataset, shuffle=False, tail="uneven")
    return DataLoader(val_dataset, sampler=sampler)


def own_share_accuracy(model, val_dataset):
    # each rank scores its own share and nothing combines the ranks: padding repeats
    # samples across ranks, never within one, so no number here holds a repeat
    sampler = DistributedSampler(val_dataset, shuffle=False)
    correct = 0
    for x, y in DataLoader(val_dataset, sampler=sampler):
        correct += (model(x).argmax(1) == y).sum()
    return correct
