"""``fairshard.formats``: WebDataset, MDS, Parquet and Arrow shards as random-access datasets.

``open_webdataset``, ``open_mds``, ``open_parquet`` and ``open_arrow`` index a
shard set once (cached and checked by digest) and return a
:class:`ShardDataset` of ``n`` samples, local or on any fsspec filesystem
through a node-shared :class:`ChunkCache`, so every fairshard sampler runs on
it unchanged. pyarrow and fsspec are imported when a set is opened
(``pip install 'fairshard[formats]'``). The same objects are importable from
``fairshard`` itself.
"""

from ._core.registry import set_public_path as _set_public_path
from ._errors import ShardError
from ._formats.cache import ChunkCache
from ._formats.dataset import ShardDataset
from ._formats.open import open_arrow, open_mds, open_parquet, open_webdataset

__all__ = [
    "ChunkCache",
    "ShardDataset",
    "ShardError",
    "open_arrow",
    "open_mds",
    "open_parquet",
    "open_webdataset",
]

for _name in __all__:  # the public path, in reprs, pickles and docs
    _set_public_path(globals()[_name], __name__)
del _name
