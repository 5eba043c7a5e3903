# Per-split flags that mark every split as trained on (the not-training flags of
# drop_last are in lint_projects/split_flags_good).
from torch.utils.data import DataLoader, DistributedSampler


def build_loaders(image_set, text_set):
    loaders = []
    for dataset, shuffle in zip([image_set, text_set], [True, True]):
        sampler = DistributedSampler(dataset, shuffle=shuffle, seed=0)
        loaders.append(DataLoader(dataset, batch_size=32, sampler=sampler))
    return loaders


def fit(model, image_set, text_set, epochs):
    loaders = build_loaders(image_set, text_set)
    for epoch in range(epochs):
        for loader in loaders:
            loader.sampler.set_epoch(epoch)
            for x in loader:
                model(x).sum().backward()
