import torch
import torch.distributed as dist
from loaders import make_loader
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DistributedSampler


def main() -> None:
    dist.init_process_group("gloo")
    model = DistributedDataParallel(torch.nn.Linear(4, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_set = torch.randn(100, 4)
    sampler = DistributedSampler(train_set)
    train_loader = make_loader(train_set, batch_size=8, sampler=sampler)
    val_loader = make_loader(torch.randn(20, 4), batch_size=8, shuffle=True)
    for epoch in range(3):
        sampler.set_epoch(epoch)
        for batch in train_loader:
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
        with torch.no_grad():
            print(epoch, sum(model(batch).sum().item() for batch in val_loader))


if __name__ == "__main__":
    main()
