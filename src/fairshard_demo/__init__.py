"""The ``fairshard demo`` app: long-tailed digits, trained with DDP under torchrun.

An application beside the library: it uses only fairshard's public API.

Modules, one concern each:

* ``data``: the bundled long-tailed digits split (needs the ``[demo]`` extra
  only to build it; the ranks read the saved arrays);
* ``methods``: the three ways of sampling being compared;
* ``train``: the per-rank script torchrun runs;
* ``report``: table, PNG plots and JSON summary;
* ``launch``: builds and runs the torchrun command lines.
"""
