"""`python -m cublasspy ...`: the same as the `cublasspy` console script."""
from ._cli import main

main()
