# The same loop setting the epoch of the sampler DeepSpeed built.
import deepspeed


def main(args, model, params, train_set):
    model_engine, optimizer, train_loader, _ = deepspeed.initialize(
        args=args, model=model, model_parameters=params, training_data=train_set
    )
    for epoch in range(args.epochs):
        train_loader.data_sampler.set_epoch(epoch)
        for step, batch in enumerate(train_loader):
            loss = model_engine(batch)
            model_engine.backward(loss)
            model_engine.step()
