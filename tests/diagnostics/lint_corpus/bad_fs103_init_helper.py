import torch
import utils
from torch.utils.data import DataLoader


def main(args, model, dataset):
    utils.init_distributed_mode(args)
    model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[args.gpu])
    loader = DataLoader(dataset, batch_size=args.batch_size, shuffle=True)  # expect: FS103
    for batch in loader:
        model(batch).sum().backward()
