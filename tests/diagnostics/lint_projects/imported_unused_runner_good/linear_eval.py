"""The one-GPU linear evaluation: a plain shuffling loader."""

from torch.utils.data import DataLoader


def main(args, dataset, classifier):
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True)
    for batch in loader:
        classifier(batch)
