from importlib import import_module


def get_trainer(config):
    return import_module(f"proj.trainers.{config.trainer}").Trainer
