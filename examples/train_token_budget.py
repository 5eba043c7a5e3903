"""Length-aware batching with fairshard.TokenBudgetBatchSampler, under torchrun.

    torchrun --nproc-per-node 4 examples/train_token_budget.py --epochs 3

Variable-length sequences are padded per batch, so batching items of similar
length wastes fewer tokens. Each batch holds as many sequences as fit a token
budget (longest sequence x batch size), every rank gets the same number of
batches, and the batches of one step cost about the same on every rank, so
no rank waits for a slower one at DDP's all-reduce. Rank 0 prints the padding
waste and the step-cost imbalance it measured.
"""

import argparse

import numpy as np
import torch
import torch.distributed as dist
from _common import finish, gather, init, model
from torch.utils.data import DataLoader

import fairshard


class Sequences(torch.utils.data.Dataset):
    """Sequence ``i`` has ``lengths[i]`` tokens of 8 features; its label is its length's parity."""

    def __init__(self, lengths: np.ndarray) -> None:
        self.lengths = lengths

    def __len__(self) -> int:
        return len(self.lengths)

    def __getitem__(self, i: int):
        g = torch.Generator().manual_seed(i)
        n = int(self.lengths[i])
        return i, torch.randn(n, 8, generator=g), int(n % 2)


def pad_collate(items):
    """Pad a batch to its longest sequence; return indices, padded tokens, labels, lengths."""
    idx, seqs, labels = zip(*items, strict=True)
    lengths = torch.tensor([len(s) for s in seqs])
    padded = torch.nn.utils.rnn.pad_sequence(list(seqs), batch_first=True)
    return torch.tensor(idx), padded, torch.tensor(labels), lengths


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--samples", type=int, default=2000)
    p.add_argument("--max-tokens", type=int, default=512)
    p.add_argument(
        "--batch-size", type=int, default=None, help="ignored: the token budget sizes the batches"
    )
    args = p.parse_args()
    device = init()
    lengths = np.clip(np.random.default_rng(0).lognormal(3.0, 0.7, args.samples), 1, 256)
    lengths = lengths.astype(np.int64)
    dataset = Sequences(lengths)
    sampler = fairshard.TokenBudgetBatchSampler(lengths, max_tokens=args.max_tokens, seed=0)
    loader = DataLoader(dataset, batch_sampler=sampler, collate_fn=pad_collate)
    net = model(8, 2, device)
    opt = torch.optim.SGD(net.parameters(), lr=0.1)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        seen, costs, real, padded_tokens = [], [], 0, 0
        for idx, xb, yb, lens in loader:
            pooled = xb.sum(dim=1) / lens[:, None]  # mean over each sequence's real tokens
            loss = torch.nn.functional.cross_entropy(net(pooled.to(device)), yb.to(device))
            opt.zero_grad()
            loss.backward()
            opt.step()
            seen.extend(idx.tolist())
            costs.append(int(xb.shape[0] * xb.shape[1]))  # padded tokens of this step
            real += int(lens.sum())
            padded_tokens += int(xb.shape[0] * xb.shape[1])
        shares = gather({"seen": seen, "costs": costs, "real": real, "padded": padded_tokens})
        if dist.get_rank() == 0:
            steps = {len(s["costs"]) for s in shares}
            per_step = np.array([s["costs"] for s in shares])  # (ranks, steps)
            imbalance = float((per_step.max(0) / per_step.mean(0)).mean())
            waste = sum(s["padded"] - s["real"] for s in shares) / sum(s["real"] for s in shares)
            distinct = len(set().union(*(s["seen"] for s in shares)))
            print(
                f"epoch {epoch}: steps per rank {sorted(steps)}, {distinct} distinct of "
                f"{len(dataset)}, padding waste {waste:.3f}, step imbalance {imbalance:.3f}",
                flush=True,
            )
    finish()


if __name__ == "__main__":
    main()
