import torch
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader


def build(model, dataset, local_rank):
    kwargs = dict(batch_size=32, shuffle=True, pin_memory=True)
    loader = DataLoader(dataset, **kwargs)  # expect: FS103
    model = DistributedDataParallel(model.cuda(local_rank), device_ids=[local_rank])
    return model, loader, torch.cuda.device_count()
