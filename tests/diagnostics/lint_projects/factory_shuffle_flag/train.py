import torch
import torch.distributed as dist
from loaders import make_loader
from torch.nn.parallel import DistributedDataParallel


def main() -> None:
    dist.init_process_group("gloo")
    model = DistributedDataParallel(torch.nn.Linear(4, 2))
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    train_loader = make_loader(torch.randn(100, 4), batch_size=8)
    val_loader = make_loader(torch.randn(20, 4), batch_size=8, shuffle=False)
    for epoch in range(3):
        for batch in train_loader:
            optimizer.zero_grad()
            model(batch).sum().backward()
            optimizer.step()
        with torch.no_grad():
            print(epoch, sum(model(batch).sum().item() for batch in val_loader))


if __name__ == "__main__":
    main()
