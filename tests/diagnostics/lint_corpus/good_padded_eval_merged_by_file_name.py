# The padded test sampler repeats up to W-1 files, but every embedding is kept under its file
# name, the ranks' dicts are gathered as objects and merged with update, and the trials are
# scored once by name: a repeated file overwrites its own entry.
import torch
import torch.distributed as dist


def evaluate(model, test_dataset, trials, score):
    sampler = torch.utils.data.distributed.DistributedSampler(test_dataset, shuffle=False)
    loader = torch.utils.data.DataLoader(test_dataset, batch_size=1, sampler=sampler)
    feats = {}
    for data in loader:
        with torch.no_grad():
            feats[data[1][0]] = model(data[0][0]).cpu()
    gathered = [None for _ in range(dist.get_world_size())]
    dist.all_gather_object(gathered, feats)
    if dist.get_rank() == 0:
        merged = gathered[0]
        for part in gathered[1:]:
            merged.update(part)
        return [score(merged[a], merged[b]) for a, b in trials]
    return None
