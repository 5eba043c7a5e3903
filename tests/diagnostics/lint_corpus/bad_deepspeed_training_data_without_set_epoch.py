# deepspeed.initialize(training_data=...) builds the loader over a shuffling
# DistributedSampler (loader.data_sampler) and never sets its epoch.
import deepspeed


def main(args, model, params, train_set):
    model_engine, optimizer, train_loader, _ = deepspeed.initialize(
        args=args, model=model, model_parameters=params, training_data=train_set
    )
    for epoch in range(args.epochs):  # expect: FS101
        for step, batch in enumerate(train_loader):
            loss = model_engine(batch)
            model_engine.backward(loss)
            model_engine.step()
