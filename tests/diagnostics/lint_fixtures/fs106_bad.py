import os

os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"  # FS106
os.environ.setdefault("CUDA_VISIBLE_DEVICES", "0")  # FS106
os.environ.update(CUDA_VISIBLE_DEVICES="1")  # FS106


def loader():  # a PyTorch data-loading script (others are not linted), run by torchrun
    import torch.distributed as dist
    from torch.utils.data import DataLoader

    dist.init_process_group("nccl")
    return DataLoader(range(4))
