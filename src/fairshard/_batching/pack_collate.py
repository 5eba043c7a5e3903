"""From a batch of packed rows to the tensors attention kernels take.

``PackingBatchSampler`` yields a batch as rows of item indices. A
``DataLoader`` hands each element of the batch (a row) to
``dataset[row]``, so the dataset is wrapped in ``PackedRows``, whose items
are rows of samples. The collate functions then build either

* ``collate_packed``: the variable-length form of FlashAttention's
  ``flash_attn_varlen_func`` and PyTorch's nested/jagged kernels -- every
  document of the batch concatenated (``input_ids``), ``position_ids``
  restarting at 0 for each document, ``cu_seqlens`` (int32 offsets of the
  documents, starting at 0) and ``max_seqlen``; or
* ``collate_packed_padded``: fixed shapes ``(rows, capacity)`` plus a
  block-diagonal attention mask ``(rows, 1, capacity, capacity)`` (causal
  within each document by default) for kernels that take a dense mask, such
  as ``torch.nn.functional.scaled_dot_product_attention``.

A sample is a 1-D tensor or sequence of token ids, or a mapping with
``"input_ids"`` (and optionally ``"labels"``, concatenated the same way).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import torch
from torch.utils.data import Dataset

from .._errors import ConfigError, ConfigTypeError, check_int

__all__ = ["PackedRows", "collate_packed", "collate_packed_padded"]

#: Label value ignored by ``torch.nn.functional.cross_entropy``.
IGNORE_INDEX = -100


class PackedRows(Dataset[list[Any]]):
    """A dataset whose item ``row`` (a list of indices) is the list of those samples.

    Args:
        dataset: Any map-style dataset.

    Example:
        >>> PackedRows(["a", "b", "c"])[[2, 0]]
        ['c', 'a']
    """

    def __init__(self, dataset: Any) -> None:
        self.dataset = dataset

    def __len__(self) -> int:
        return len(self.dataset)

    def __getitem__(self, row: Sequence[int]) -> list[Any]:
        if isinstance(row, int):
            raise ConfigTypeError(
                "PackedRows is indexed by a row (a list of indices), got an int; use it with "
                "batch_sampler=PackingBatchSampler(...)"
            )
        return [self.dataset[int(i)] for i in row]


def _tokens(sample: Any) -> tuple[Any, Any]:
    """The token ids of a sample (a tensor or a list) and its labels (or ``None``)."""
    if isinstance(sample, Mapping):
        if "input_ids" not in sample:
            raise ConfigError(
                f"a packed sample is a mapping without 'input_ids' (keys {sorted(sample)})"
            )
        return sample["input_ids"], sample.get("labels")
    return sample, None


def _cat(parts: list[Any]) -> torch.Tensor:
    """Concatenate 1-D token sequences: one tensor copy, or one conversion of Python lists."""
    if all(isinstance(p, torch.Tensor) for p in parts):
        return torch.cat([p.reshape(-1).long() for p in parts])
    flat: list[int] = []
    for p in parts:
        flat.extend(p.reshape(-1).tolist() if isinstance(p, torch.Tensor) else p)
    return torch.tensor(flat, dtype=torch.long)


def _flatten(batch: Sequence[Sequence[Any]]) -> tuple[list[Any], list[Any], list[int]]:
    """Documents of all rows in order, their labels, and the number of documents per row."""
    docs: list[Any] = []
    labels: list[Any] = []
    per_row: list[int] = []
    for row in batch:
        per_row.append(len(row))
        for sample in row:
            ids, lab = _tokens(sample)
            docs.append(ids)
            labels.append(lab)
    if not docs:
        raise ConfigError("collate got a batch without documents")
    return docs, labels, per_row


def _labels(labels: list[Any]) -> torch.Tensor | None:
    if all(lab is None for lab in labels):
        return None
    if any(lab is None for lab in labels):
        raise ConfigError("some samples have 'labels' and some do not")
    return _cat(labels)


def collate_packed(batch: Sequence[Sequence[Any]]) -> dict[str, Any]:
    """Concatenate a batch of rows for variable-length attention.

    Args:
        batch: Rows of samples (what ``PackedRows`` gives a ``DataLoader``).

    Returns:
        ``input_ids`` (total,) int64; ``position_ids`` (total,) int64,
        restarting at 0 for each document; ``cu_seqlens`` (docs + 1,) int32
        document boundaries; ``max_seqlen`` (int); ``row_offsets`` (rows + 1,)
        int32 document count boundaries per row; and ``labels`` (total,) when
        the samples have them.

    Example:
        >>> out = collate_packed([[[5, 6, 7], [8]], [[9, 9]]])
        >>> out["input_ids"].tolist(), out["position_ids"].tolist()
        ([5, 6, 7, 8, 9, 9], [0, 1, 2, 0, 0, 1])
        >>> out["cu_seqlens"].tolist(), out["max_seqlen"], out["row_offsets"].tolist()
        ([0, 3, 4, 6], 3, [0, 2, 3])
    """
    docs, labels, per_row = _flatten(batch)
    lengths = torch.tensor([len(d) for d in docs], dtype=torch.int32)
    if bool((lengths == 0).any()):
        empty = int(torch.nonzero(lengths == 0)[0])
        raise ConfigError(f"document {empty} of the batch has no tokens; drop empty documents")
    cu = torch.zeros(len(docs) + 1, dtype=torch.int32)
    torch.cumsum(lengths, 0, out=cu[1:])
    total = int(cu[-1])
    # Position ids restart at each document start: a cumulative sum of ones that
    # drops back by the previous document's length at every boundary.
    steps = torch.ones(total, dtype=torch.long)
    steps[cu[1:-1].long()] = 1 - lengths[:-1].long()
    steps[0] = 0
    out: dict[str, Any] = {
        "input_ids": _cat(docs),
        "position_ids": torch.cumsum(steps, 0),
        "cu_seqlens": cu,
        "max_seqlen": int(lengths.max()),
        "row_offsets": torch.tensor([0, *itertools.accumulate(per_row)], dtype=torch.int32),
    }
    lab = _labels(labels)
    if lab is not None:
        out["labels"] = lab
    return out


def collate_packed_padded(
    batch: Sequence[Sequence[Any]],
    capacity: int,
    *,
    pad_id: int = 0,
    causal: bool = True,
) -> dict[str, torch.Tensor]:
    """Fixed-shape rows plus a block-diagonal attention mask.

    Args:
        batch: Rows of samples.
        capacity: Row length; every row's documents must fit in it.
        pad_id: Token id for the padding at the end of each row.
        causal: Mask future tokens within each document too.

    Returns:
        ``input_ids``, ``position_ids``, ``document_ids`` (-1 on padding)
        and ``labels`` (``IGNORE_INDEX`` on padding; the samples' labels, or
        the input ids, otherwise) of shape (rows, capacity); and
        ``attention_mask`` (rows, 1, capacity, capacity) bool, True where a
        query may attend to a key. A padding position attends to itself only,
        so no softmax row is empty.

    Example:
        >>> out = collate_packed_padded([[[5, 6], [7]]], 4, causal=False)
        >>> out["input_ids"].tolist(), out["document_ids"].tolist()
        ([[5, 6, 7, 0]], [[0, 0, 1, -1]])
        >>> out["attention_mask"][0, 0].int().tolist()
        [[1, 1, 0, 0], [1, 1, 0, 0], [0, 0, 1, 0], [0, 0, 0, 1]]
    """
    capacity = check_int("capacity", capacity, minimum=1)
    rows = len(batch)
    ids = torch.full((rows, capacity), pad_id, dtype=torch.long)
    positions = torch.zeros((rows, capacity), dtype=torch.long)
    documents = torch.full((rows, capacity), -1, dtype=torch.long)
    labels = torch.full((rows, capacity), IGNORE_INDEX, dtype=torch.long)
    for r, row in enumerate(batch):
        at = 0
        for d, sample in enumerate(row):
            raw, lab = _tokens(sample)
            tokens = torch.as_tensor(raw, dtype=torch.long).reshape(-1)
            n = tokens.numel()
            if at + n > capacity:
                raise ConfigError(
                    f"row {r} holds {at + n}+ tokens, over capacity={capacity}; pass the "
                    "sampler's capacity"
                )
            ids[r, at : at + n] = tokens
            positions[r, at : at + n] = torch.arange(n)
            documents[r, at : at + n] = d
            labels[r, at : at + n] = tokens if lab is None else torch.as_tensor(lab).reshape(-1)
            at += n
    same = documents[:, :, None] == documents[:, None, :]  # (rows, capacity, capacity)
    mask = same & (documents[:, :, None] >= 0)
    if causal:
        mask &= torch.ones(capacity, capacity, dtype=torch.bool).tril()
    mask |= torch.eye(capacity, dtype=torch.bool)  # padding attends to itself
    return {
        "input_ids": ids,
        "position_ids": positions,
        "document_ids": documents,
        "labels": labels,
        "attention_mask": mask[:, None],
    }
