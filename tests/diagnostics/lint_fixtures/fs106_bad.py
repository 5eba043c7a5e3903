import os

os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"  # FS106
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "0")  # FS106
os.environ.update(CUDA_VISIBLE_DEVICES="1")  # FS106


def loader():  # a PyTorch data-loading script (others are not linted)
    from torch.utils.data import DataLoader

    return DataLoader(range(4))
