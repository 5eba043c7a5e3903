import torch
from src.runner import WindowDataset, run_cv_experiment

if __name__ == "__main__":
    trainer_kwargs = dict(
        max_epochs=10, accelerator="gpu" if torch.cuda.is_available() else "cpu", devices=1
    )
    run_cv_experiment(WindowDataset, 5, trainer_kwargs=trainer_kwargs)
