# Launched on two processes, each drawing its own split, and the parts are handed on as
# they are: the Trainer shards each process's own training set, so the shares overlap.
from datasets import load_dataset
from transformers import AutoModelForCausalLM, TrainingArguments
from trl import SFTTrainer


def create_datasets(name):
    dataset = load_dataset(name, split="train")
    dataset = dataset.train_test_split(test_size=0.005, seed=None)  # expect: FS110
    train_data = dataset["train"]
    valid_data = dataset["test"]
    return train_data, valid_data


train_dataset, eval_dataset = create_datasets("data/sft")
trainer = SFTTrainer(
    model=AutoModelForCausalLM.from_pretrained("gpt2"),
    train_dataset=train_dataset,
    eval_dataset=eval_dataset,
    args=TrainingArguments(output_dir="out"),
)
trainer.train()
