import os

import pytest
from hypothesis import HealthCheck, settings

# Virtual ranks must not pick up a launcher's environment by accident.
for _name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "FAIRSHARD_VERIFY"):
    os.environ.pop(_name, None)

# `make test-floors` runs the suite on torch 2.1, for which no torchdata with
# StatefulDataLoader exists: there alone, test modules that import it are left
# out (tests/integrations is left out by the Makefile). Everywhere else the
# [dev] extra installs torchdata and a missing one fails loudly.
collect_ignore: list[str] = []
if os.environ.get("FAIRSHARD_FLOORS") == "1":
    try:
        import torchdata.stateful_dataloader  # noqa: F401
    except ImportError:
        collect_ignore.append("batching/test_batch_sampler_misuse.py")

settings.register_profile(
    "fairshard",
    deadline=None,
    max_examples=60,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
settings.load_profile("fairshard")


@pytest.fixture(autouse=True)
def _clean_launcher_env(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "FAIRSHARD_VERIFY"):
        monkeypatch.delenv(name, raising=False)
