"""The warp model: an Oclgrind plugin (``model.cpp``, C++) that counts what a GPU's warps would do
with a kernel's memory accesses and branches, and its build (:mod:`.build`: the plugin compiled
into the course's cache against the Oclgrind that pip installed). What it counts and how that maps
to a GPU profiler's counters: docs/warp-model.md. The checker runs kernels with it
(:mod:`helpers.checking.counters`)."""
