"""pytest setup: the package under test is the build tree's
(<build>/python, on PYTHONPATH from scripts/test.sh) or an installed one;
python/examples is importable as plain modules."""
import os
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "python", "examples"))


def cuda_available():
    try:
        import torch
    except ImportError:
        return False
    return torch.cuda.is_available()


requires_cuda = pytest.mark.skipif(not cuda_available(),
                                   reason="skipped: no CUDA device")


@pytest.fixture
def rng():
    import numpy as np
    return np.random.default_rng(1234)
