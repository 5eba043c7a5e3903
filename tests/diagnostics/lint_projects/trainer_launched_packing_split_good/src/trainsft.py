# Launched on two processes, each drawing its own split: but both parts become packed
# iterable datasets, whose batches the Trainer's accelerate hands out from the main
# process, so only the main process's split is read.
from datasets import load_dataset
from transformers import AutoModelForCausalLM, AutoTokenizer, TrainingArguments
from trl import SFTTrainer
from trl.trainer import ConstantLengthDataset


def create_datasets(tokenizer, name):
    dataset = load_dataset(name, split="train")
    dataset = dataset.train_test_split(test_size=0.005, seed=None)
    train_data = dataset["train"]
    valid_data = dataset["test"]
    train_dataset = ConstantLengthDataset(tokenizer, train_data, infinite=True, seq_length=1024)
    valid_dataset = ConstantLengthDataset(tokenizer, valid_data, infinite=False, seq_length=1024)
    return train_dataset, valid_dataset


tokenizer = AutoTokenizer.from_pretrained("gpt2")
train_dataset, eval_dataset = create_datasets(tokenizer, "data/sft")
trainer = SFTTrainer(
    model=AutoModelForCausalLM.from_pretrained("gpt2"),
    train_dataset=train_dataset,
    eval_dataset=eval_dataset,
    args=TrainingArguments(output_dir="out"),
)
trainer.train()
