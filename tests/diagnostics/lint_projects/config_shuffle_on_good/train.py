# Every config turns the sampler's shuffling off: its order is the same every
# epoch by choice, so no set_epoch is missing.
import hydra
import torch.distributed as dist
from dataloader import get_dataloader


@hydra.main(config_path="configs", config_name="config_train")
def main(args):
    dist.init_process_group("nccl")
    loader = get_dataloader(args.data.dataset, 8, args.seed, shuffle=args.data.shuffle)
    for epoch in range(args.epochs):
        for batch in loader:
            args.model(batch).backward()


if __name__ == "__main__":
    main()
