# Four devices: Lightning pads the validation loader, and the logged value is synced.

from src.runner import WindowDataset, run_cv_experiment

if __name__ == "__main__":
    run_cv_experiment(
        WindowDataset, 5, trainer_kwargs={"max_epochs": 10, "devices": 4, "strategy": "ddp"}
    )
