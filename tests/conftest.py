import os

import pytest
from hypothesis import HealthCheck, settings

# Virtual ranks must not pick up a launcher's environment by accident.
for _name in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "FAIRSHARD_VERIFY"):
    os.environ.pop(_name, None)

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
