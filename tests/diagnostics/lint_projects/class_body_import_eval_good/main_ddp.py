"""torchrun --nproc_per_node=8 main_ddp.py: evaluates through Bridge.evaluate."""

import torch
import torch.distributed as dist
from bridge import Bridge
from data import get_dataloaders


def main():
    dist.init_process_group("gloo")
    eval_loader = get_dataloaders(1001, 8, mode="validation")
    bridge = Bridge(torch.nn.Linear(4, 1))
    print(bridge.evaluate(eval_loader=eval_loader, mode="valid"))


if __name__ == "__main__":
    main()
