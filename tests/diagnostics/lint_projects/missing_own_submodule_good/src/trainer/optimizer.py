def configure_optimizer(model):
    return model
