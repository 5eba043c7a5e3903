from torch.utils.data import DataLoader

from fairshard import TokenBudgetBatchSampler


def build(dataset, lengths, use_budget, collate):
    return DataLoader(  # expect: FS112
        dataset,
        sampler=TokenBudgetBatchSampler(lengths, max_tokens=4096) if use_budget else None,
        collate_fn=collate,
    )
