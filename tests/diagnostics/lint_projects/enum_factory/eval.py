import torch.distributed as dist

from .loaders import SamplerType, make_data_loader


def evaluate(model, dataset, batch_size):
    data_loader = make_data_loader(
        dataset=dataset,
        batch_size=batch_size,
        sampler_type=SamplerType.DISTRIBUTED,
        shuffle=False,
    )
    outputs = [model(batch) for batch in data_loader]
    gathered = [None] * dist.get_world_size()
    dist.all_gather_object(gathered, outputs)  # every rank's outputs, repeats included
    return [o for part in gathered for o in part]
