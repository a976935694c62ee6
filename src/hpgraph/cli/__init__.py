"""The ``hpgraph`` command line: ``generate``, ``info``, ``run``, ``convert``, ``bench`` and
``demo`` (see ``hpgraph --help``).

Built on click, printed with rich. The entry point is :func:`hpgraph.cli.main.main`; it maps
exceptions to exit codes (0 ok, 1 a verification failure or a kernel error, 2 bad input or
usage), which the library never does. Importing this package is cheap: numpy, numba and
the kernels load inside the commands, so ``hpgraph --help`` answers at once.
"""

__all__: list[str] = []
