from random import shuffle


def random_split_files(files, val_ratio):
    """A file list shuffled by Python's own generator and cut in two."""
    shuffle(files)  # expect: FS110
    n_val = round(len(files) * val_ratio)
    n_train = len(files) - n_val
    train_files = files[:n_train]
    val_files = files[n_train:]
    return train_files, val_files
