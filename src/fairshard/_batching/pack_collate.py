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

A sample is a tensor or sequence of token ids -- 1-D, or ``(1, n)`` as a
tokenizer's ``return_tensors="pt"`` gives -- or a mapping with
``"input_ids"`` (and optionally ``"labels"`` of the same length). Both
collates read a document through one reader (``read_document``), so they
accept and refuse the same samples.

NOTE (labels at document boundaries): a causal LM that shifts labels
internally (Hugging Face's models: the logits at position ``t`` are scored
against ``labels[t + 1]``) would, on a concatenation, train the last token of
each document to predict the first token of the next. Both collates
therefore put ``IGNORE_INDEX`` at each document's first label position, as
Hugging Face's ``DataCollatorWithFlattening`` does; nothing is lost, since
no token of the document predicts its own first token. Pass
``mask_first_label=False`` for labels already aligned with the inputs (a
model that does not shift).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
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


def _token_tensor(value: Any, what: str) -> torch.Tensor:
    """``value`` as a (n,) int64 tensor: 1-D, or (1, n) squeezed; anything else refused.

    A tensor is used as it is; anything else is read once by numpy (a list of
    ints costs about as much as ``torch.tensor`` on it, and a ragged list fails
    there), then handed over without a second conversion.
    """
    if isinstance(value, torch.Tensor):
        shape, integral = (
            tuple(value.shape),
            not (value.dtype == torch.bool or value.is_floating_point() or value.is_complex()),
        )
        dtype: Any = value.dtype
    else:
        try:
            value = np.asarray(value)
        except (TypeError, ValueError) as exc:
            raise ConfigTypeError(f"{what} is not a sequence of token ids: {exc}") from None
        shape, integral, dtype = value.shape, value.dtype.kind in "iu", value.dtype
    if 0 in shape:  # before the dtype: an empty list reads as float
        raise ConfigError(f"{what} has no tokens; drop empty documents")
    if not integral:
        raise ConfigTypeError(
            f"{what} has dtype {dtype}; token ids and labels are integers (cast them, or "
            "check that the right field is passed)"
        )
    if len(shape) == 2 and shape[0] == 1:
        value = value[0]  # a tokenizer's return_tensors="pt": one sequence as (1, n)
    elif len(shape) != 1:
        raise ConfigError(
            f"{what} has shape {shape}; a packed document is one sequence: pass 1-D token ids "
            "(or (1, n), as a tokenizer's return_tensors='pt' gives), one document per sample"
        )
    if isinstance(value, torch.Tensor):
        return value.long()
    return torch.from_numpy(value.astype(np.int64))


def read_document(sample: Any, index: int) -> tuple[torch.Tensor, torch.Tensor | None]:
    """The (n,) int64 token ids of the batch's document ``index`` and its (n,) labels or ``None``.

    The one reader of both collates (module docstring): a tensor or sequence
    of ids, or a mapping with ``"input_ids"`` and optionally ``"labels"``.

    Raises:
        ConfigError: no ``"input_ids"``, an empty document, a shape that is not
            one sequence, or labels of another length than the ids.
        ConfigTypeError: ids or labels that are not integers.
    """
    what = f"document {index} of the batch"
    if isinstance(sample, Mapping):
        if "input_ids" not in sample:
            raise ConfigError(f"{what} is a mapping without 'input_ids' (keys {sorted(sample)})")
        ids = _token_tensor(sample["input_ids"], f"{what}: input_ids")
        raw = sample.get("labels")
        if raw is None:
            return ids, None
        labels = _token_tensor(raw, f"{what}: labels")
        if labels.numel() != ids.numel():
            raise ConfigError(
                f"{what} has {ids.numel()} input_ids but {labels.numel()} labels; labels align "
                f"with input_ids one to one (put {IGNORE_INDEX} where a position has no label)"
            )
        return ids, labels
    return _token_tensor(sample, what), None


def _documents(batch: Sequence[Sequence[Any]]) -> list[list[tuple[torch.Tensor, Any]]]:
    """Every row's documents, read by ``read_document`` (numbered across the batch)."""
    rows: list[list[tuple[torch.Tensor, Any]]] = []
    count = 0
    for row in batch:
        read = []
        for sample in row:
            read.append(read_document(sample, count))
            count += 1
        rows.append(read)
    return rows


def _labels_of(docs: list[tuple[torch.Tensor, Any]]) -> list[torch.Tensor] | None:
    """Each document's labels; ``None`` when no sample has labels."""
    given = [lab is not None for _, lab in docs]
    if not any(given):
        return None
    if not all(given):
        missing = given.index(False)
        raise ConfigError(
            f"some samples have 'labels' and some do not (document {missing} of the batch has "
            "none); give every sample labels, or none"
        )
    return [lab for _, lab in docs]


def collate_packed(
    batch: Sequence[Sequence[Any]], *, mask_first_label: bool = True
) -> dict[str, Any]:
    """Concatenate a batch of rows for variable-length attention.

    Args:
        batch: Rows of samples (what ``PackedRows`` gives a ``DataLoader``).
        mask_first_label: Put ``IGNORE_INDEX`` at each document's first label
            position (module NOTE), so a model that shifts labels never
            trains across a document boundary.

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
    rows = _documents(batch)
    docs = [doc for row in rows for doc in row]
    if not docs:
        raise ConfigError("collate got a batch without documents")
    lengths = torch.tensor([ids.numel() for ids, _ in docs], dtype=torch.int32)
    cu = torch.zeros(len(docs) + 1, dtype=torch.int32)
    torch.cumsum(lengths, 0, out=cu[1:])
    total = int(cu[-1])
    # Position ids restart at each document start: a cumulative sum of ones that
    # drops back by the previous document's length at every boundary.
    steps = torch.ones(total, dtype=torch.long)
    steps[cu[1:-1].long()] = 1 - lengths[:-1].long()
    steps[0] = 0
    out: dict[str, Any] = {
        "input_ids": torch.cat([ids for ids, _ in docs]),
        "position_ids": torch.cumsum(steps, 0),
        "cu_seqlens": cu,
        "max_seqlen": int(lengths.max()),
        "row_offsets": torch.tensor(
            [0, *itertools.accumulate(len(row) for row in rows)], dtype=torch.int32
        ),
    }
    labels = _labels_of(docs)
    if labels is not None:
        out["labels"] = torch.cat(labels)
        if mask_first_label:
            out["labels"][cu[:-1].long()] = IGNORE_INDEX
    return out


def collate_packed_padded(
    batch: Sequence[Sequence[Any]],
    capacity: int,
    *,
    pad_id: int = 0,
    causal: bool = True,
    mask_first_label: bool = True,
) -> dict[str, torch.Tensor]:
    """Fixed-shape rows plus a block-diagonal attention mask.

    Args:
        batch: Rows of samples.
        capacity: Row length; every row's documents must fit in it.
        pad_id: Token id for the padding at the end of each row.
        causal: Mask future tokens within each document too.
        mask_first_label: Put ``IGNORE_INDEX`` at each document's first label
            position (module NOTE).

    Returns:
        ``input_ids``, ``position_ids``, ``document_ids`` (-1 on padding)
        and ``labels`` (``IGNORE_INDEX`` on padding and, by default, at each
        document's first position; the samples' labels, or the input ids,
        otherwise) of shape (rows, capacity); and
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
    read = _documents(batch)
    _labels_of([doc for row in read for doc in row])  # all samples have labels, or none
    for r, row in enumerate(read):
        at = 0
        for d, (tokens, lab) in enumerate(row):
            n = tokens.numel()
            if at + n > capacity:
                raise ConfigError(
                    f"row {r} holds {at + n}+ tokens, over capacity={capacity}; pass the "
                    "sampler's capacity"
                )
            ids[r, at : at + n] = tokens
            positions[r, at : at + n] = torch.arange(n)
            documents[r, at : at + n] = d
            labels[r, at : at + n] = tokens if lab is None else lab
            if mask_first_label:
                labels[r, at] = IGNORE_INDEX
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
