# A scoring helper (named for its metric, not for evaluation) reads the prepared evaluation
# loader its caller hands it, and gathers the concatenated scores after the loop: the
# samples accelerate repeats to fill the last batch count twice in the EER.
import torch
from accelerate import Accelerator
from torch.utils.data import DataLoader


def calculate_eer(dataloader, model, accelerator):
    all_scores, all_labels = [], []
    for inputs, labels in dataloader:
        all_scores.append(model(inputs)[:, 1])
        all_labels.append(labels)
    scores = accelerator.gather_for_metrics(torch.cat(all_scores))  # expect: FS109
    labels = accelerator.gather_for_metrics(torch.cat(all_labels))
    return equal_error_rate(scores, labels)


def equal_error_rate(scores, labels):
    return float((scores[labels == 1] < scores[labels == 0].mean()).float().mean())


def main(model, optimizer, train_set, eval_set):
    accelerator = Accelerator()
    train_dataloader = DataLoader(train_set, batch_size=32, shuffle=True)
    eval_dataloader = DataLoader(eval_set, batch_size=32, shuffle=False)
    model, optimizer, train_dataloader, eval_dataloader = accelerator.prepare(
        model, optimizer, train_dataloader, eval_dataloader
    )
    for epoch in range(10):
        for inputs, labels in train_dataloader:
            accelerator.backward(torch.nn.functional.cross_entropy(model(inputs), labels))
            optimizer.step()
            optimizer.zero_grad()
        accelerator.print(epoch, calculate_eer(eval_dataloader, model, accelerator))
