"""Packed sequences with fairshard.PackingBatchSampler, under torchrun.

    torchrun --nproc-per-node 4 examples/train_packed.py --epochs 3

Documents of log-normal length are packed whole into rows of ``--capacity``
tokens; a batch is ``--rows`` rows. ``collate_packed_padded`` gives fixed
shapes and a block-diagonal causal mask, so a document never attends to its
neighbour in the row, and position ids restart per document. Every rank takes
the same number of steps, every document is trained on once per epoch, and
the batches of one step hold about the same number of tokens on every rank.
Rank 0 prints the packing efficiency and the step imbalance it measured.
"""

import argparse
import functools

import numpy as np
import torch
import torch.distributed as dist
from _common import finish, gather, init
from torch.nn.parallel import DistributedDataParallel
from torch.utils.data import DataLoader

import fairshard

VOCAB = 32


class Documents(torch.utils.data.Dataset):
    """Document ``i``: ``lengths[i]`` token ids counting up from ``i % VOCAB`` (mod VOCAB)."""

    def __init__(self, lengths: np.ndarray) -> None:
        self.lengths = lengths

    def __len__(self) -> int:
        return len(self.lengths)

    def __getitem__(self, i: int) -> dict:
        ids = (i + torch.arange(int(self.lengths[i]))) % VOCAB
        return {"input_ids": ids, "labels": (ids + 1) % VOCAB, "index": i}


class TinyLM(torch.nn.Module):
    """Embedding, one masked self-attention layer, a projection to the vocabulary."""

    def __init__(self, capacity: int) -> None:
        super().__init__()
        self.tokens = torch.nn.Embedding(VOCAB, 16)
        self.positions = torch.nn.Embedding(capacity, 16)
        self.qkv = torch.nn.Linear(16, 48)
        self.out = torch.nn.Linear(16, VOCAB)

    def forward(self, ids, positions, mask):
        h = self.tokens(ids) + self.positions(positions)
        q, k, v = self.qkv(h).unsqueeze(1).chunk(3, dim=-1)
        a = torch.nn.functional.scaled_dot_product_attention(q, k, v, attn_mask=mask)
        return self.out(h + a.squeeze(1))


def main() -> None:
    p = argparse.ArgumentParser()
    p.add_argument("--epochs", type=int, default=3)
    p.add_argument("--samples", type=int, default=2000, help="documents")
    p.add_argument("--capacity", type=int, default=256)
    p.add_argument("--rows", type=int, default=4)
    p.add_argument("--batch-size", type=int, default=None, help="ignored: --rows sizes batches")
    args = p.parse_args()
    device = init()
    rng = np.random.default_rng(0)
    lengths = np.clip(rng.lognormal(3.0, 0.8, args.samples), 1, args.capacity).astype(np.int64)
    dataset = Documents(lengths)
    sampler = fairshard.PackingBatchSampler(lengths, args.capacity, args.rows, seed=0)
    # The labels are aligned with the inputs (the model does not shift them):
    # no first position of a document to mask.
    collate = functools.partial(
        fairshard.collate_packed_padded, capacity=args.capacity, mask_first_label=False
    )

    def with_indices(rows):
        batch = collate(rows)
        batch["index"] = [s["index"] for row in rows for s in row]
        return batch

    loader = DataLoader(
        fairshard.PackedRows(dataset), batch_sampler=sampler, collate_fn=with_indices
    )
    torch.manual_seed(0)
    net = TinyLM(args.capacity).to(device)
    net = DistributedDataParallel(net, device_ids=[device.index] if device.type == "cuda" else None)
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)
        seen, tokens = [], []
        for batch in loader:
            logits = net(
                batch["input_ids"].to(device),
                batch["position_ids"].to(device),
                batch["attention_mask"].to(device),
            )
            loss = torch.nn.functional.cross_entropy(
                logits.reshape(-1, VOCAB), batch["labels"].reshape(-1).to(device)
            )
            opt.zero_grad()
            loss.backward()
            opt.step()
            seen.extend(batch["index"])
            tokens.append(int((batch["document_ids"] >= 0).sum()))
        shares = gather({"seen": seen, "tokens": tokens})
        if dist.get_rank() == 0:
            steps = sorted({len(s["tokens"]) for s in shares})
            per_step = np.array([s["tokens"] for s in shares], dtype=np.float64)
            imbalance = float((per_step.max(0) / per_step.mean(0)).mean())
            distinct = len(set().union(*(s["seen"] for s in shares)))
            print(
                f"epoch {epoch}: steps per rank {steps}, {distinct} distinct of {len(dataset)}, "
                f"efficiency {sampler.efficiency():.3f}, step imbalance {imbalance:.3f}, "
                f"loss {loss.item():.3f}",
                flush=True,
            )
    finish()


if __name__ == "__main__":
    main()
