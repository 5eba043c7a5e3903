from .loaders import SamplerType, make_data_loader


def evaluate(model, dataset, batch_size):
    data_loader = make_data_loader(
        dataset=dataset,
        batch_size=batch_size,
        sampler_type=SamplerType.DISTRIBUTED,
        shuffle=False,
    )
    return [model(batch) for batch in data_loader]
