from .loaders import SamplerType, make_data_loader


def do_train(model, dataset, batch_size, max_iter):
    data_loader = make_data_loader(
        dataset=dataset, batch_size=batch_size, sampler_type=SamplerType.INFINITE
    )
    for step, batch in zip(range(max_iter), data_loader):
        model(batch).sum().backward()
