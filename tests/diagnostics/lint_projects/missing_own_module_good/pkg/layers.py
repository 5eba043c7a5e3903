"""The package kept its layers; the models module the scripts import is gone."""


def block(width):
    return width
