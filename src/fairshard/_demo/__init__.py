"""The ``fairshard demo`` job: long-tailed digits, trained with DDP under torchrun.

Modules, one concern each:

* ``data``: the bundled long-tailed digits split (needs the ``[demo]`` extra
  only to build it; the ranks read the saved arrays);
* ``coverage``: the pure check that the shares every rank saw are disjoint
  and cover what the sampler's plan promises;
* ``methods``: the three ways of sampling being compared;
* ``train``: the per-rank script torchrun runs;
* ``report``: table, PNG plots and JSON summary;
* ``launch``: builds and runs the torchrun command lines.
"""
