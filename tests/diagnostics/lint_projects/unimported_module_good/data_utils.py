from torch.utils.data import DataLoader


def prepare_data(train_dataset):
    return DataLoader(train_dataset, batch_size=32)
