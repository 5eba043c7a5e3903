import os

import jax
import jax.numpy as jnp

os.environ.setdefault("CUDA_VISIBLE_DEVICES", "0")
os.environ["XLA_PYTHON_CLIENT_PREALLOCATE"] = "false"
key = jax.random.PRNGKey(0)
print(jnp.sum(jax.random.normal(key, (4,))))
