"""The packed collates: one reader of a document's tokens, labels at document boundaries."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch

from fairshard import ConfigError, ConfigTypeError, collate_packed, collate_packed_padded

CAPACITY = 12
COLLATES: dict[str, Callable[..., dict[str, Any]]] = {
    "varlen": collate_packed,
    "padded": lambda batch, **kw: collate_packed_padded(batch, CAPACITY, **kw),
}
# The same three documents in every form a sample takes.
IDS = [[5, 6, 7, 8, 9], [1, 2], [3, 4, 5]]
FORMS: dict[str, Callable[[list[int]], Any]] = {
    "list": lambda d: d,
    "tensor": torch.tensor,
    "numpy": np.array,
    "tokenizer (1, n)": lambda d: torch.tensor([d]),
    "mapping of (1, n)": lambda d: {"input_ids": torch.tensor([d])},
    "mapping with labels (1, n)": lambda d: {
        "input_ids": torch.tensor([d]),
        "labels": torch.tensor([d]),
    },
}


def tokens_per_document(name: str, out: dict[str, Any]) -> list[list[int]]:
    if name == "varlen":
        cu = out["cu_seqlens"].tolist()
        ids = out["input_ids"].tolist()
        return [ids[a:b] for a, b in itertools.pairwise(cu)]
    docs: list[list[int]] = []
    for row_ids, row_docs in zip(
        out["input_ids"].tolist(), out["document_ids"].tolist(), strict=True
    ):
        for d in sorted(set(row_docs) - {-1}):
            docs.append([t for t, k in zip(row_ids, row_docs, strict=True) if k == d])
    return docs


@pytest.mark.parametrize("form", sorted(FORMS))
@pytest.mark.parametrize("name", sorted(COLLATES))
def test_every_form_of_a_sample_reads_alike(name: str, form: str) -> None:
    batch = [[FORMS[form](IDS[0]), FORMS[form](IDS[1])], [FORMS[form](IDS[2])]]
    out = COLLATES[name](batch)
    assert tokens_per_document(name, out) == IDS
    if name == "varlen":
        assert out["cu_seqlens"].tolist() == [0, 5, 7, 10] and out["max_seqlen"] == 5


@pytest.mark.parametrize("name", sorted(COLLATES))
@pytest.mark.parametrize(
    ("sample", "error", "match"),
    [
        (torch.zeros(2, 3, dtype=torch.long), ConfigError, r"shape \(2, 3\).* one sequence"),
        (torch.tensor(7), ConfigError, r"shape \(\).* one sequence"),
        ([], ConfigError, "document 1 of the batch has no tokens"),
        ([1.5, 2.0], ConfigTypeError, "dtype float64; token ids and labels are integers"),
        (torch.ones(3), ConfigTypeError, "dtype torch.float32"),
        ([[1, 2], [3]], ConfigTypeError, "not a sequence of token ids"),
        ({"input_ids": [1, 2, 3], "labels": [1, 2]}, ConfigError, "3 input_ids but 2 labels"),
        ({"input_ids": [1, 2], "labels": [[1, 2, 3]]}, ConfigError, "2 input_ids but 3 labels"),
        ({"ids": [1]}, ConfigError, "without 'input_ids'"),
    ],
)
def test_bad_documents_are_refused_by_both_collates(
    name: str, sample: Any, error: type, match: str
) -> None:
    with pytest.raises(error, match=match):
        COLLATES[name]([[[4, 4], sample]])


@pytest.mark.parametrize("name", sorted(COLLATES))
def test_labels_on_some_samples_only_are_refused(name: str) -> None:
    with pytest.raises(ConfigError, match="document 1 of the batch has none"):
        COLLATES[name]([[{"input_ids": [1, 2], "labels": [1, 2]}], [[3, 4]]])


def shifted_pairs(name: str, out: dict[str, Any]) -> list[tuple[int, int, int]]:
    """(document of the input, document of the label, label) of every scored shifted pair.

    A causal LM that shifts internally scores the logits at ``t`` against
    ``labels[t + 1]`` within each row of its input.
    """
    if name == "varlen":
        cu = out["cu_seqlens"].tolist()
        doc = np.repeat(np.arange(len(cu) - 1), np.diff(cu))[None]
        labels = out["labels"][None]
    else:
        doc, labels = out["document_ids"].numpy(), out["labels"]
    pairs = []
    for r in range(labels.shape[0]):
        for t in range(labels.shape[1] - 1):
            if int(labels[r, t + 1]) != -100:
                pairs.append((int(doc[r, t]), int(doc[r, t + 1]), int(labels[r, t + 1])))
    return pairs


@pytest.mark.parametrize("with_labels", [False, True])
@pytest.mark.parametrize("name", sorted(COLLATES))
def test_a_causal_shift_never_trains_across_a_document_boundary(
    name: str, with_labels: bool
) -> None:
    def sample(d: list[int]) -> Any:
        return {"input_ids": d, "labels": [t + 100 for t in d]} if with_labels else d

    batch = [[sample(IDS[0]), sample(IDS[1]), sample([9])], [sample(IDS[2]), sample([8, 8])]]
    if name == "varlen" and not with_labels:
        assert "labels" not in collate_packed(batch)  # the varlen collate emits given labels only
        return
    out = COLLATES[name](batch)
    pairs = shifted_pairs(name, out)
    assert all(a == b for a, b, _ in pairs), "a label scored across a boundary"
    # Every within-document next-token target is still scored: n - 1 per document.
    assert len(pairs) == sum(len(d) - 1 for d in [IDS[0], IDS[1], [9], IDS[2], [8, 8]])
    # The other convention, for labels aligned with the inputs: nothing is masked.
    plain = COLLATES[name](batch, mask_first_label=False)
    expected = [
        t + (100 if with_labels else 0)
        for row in batch
        for d in row
        for t in (d["input_ids"] if with_labels else d)
    ]
    got = plain["labels"].reshape(-1).tolist()
    assert [v for v in got if v != -100] == expected
