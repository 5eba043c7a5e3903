from transformers import Trainer


def train_model(model, train_dataset, eval_dataset, training_args):
    trainer = Trainer(
        model=model, args=training_args, train_dataset=train_dataset, eval_dataset=eval_dataset
    )
    trainer.train()
