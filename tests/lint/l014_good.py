import numpy as np
import mindspore as ms
import mindspore.nn as nn
from mindspore import Parameter, Tensor


class Embed(nn.Cell):
    def __init__(self, n):
        super().__init__()
        self.pos = Tensor(np.arange(n), ms.int32)
        table = np.zeros((n, 4)).astype(np.float32)
        self.table = Parameter(Tensor(table), name="table")
        self.w = Parameter(Tensor(np.random.randn(4, 4).astype(np.float32)), name="w")
        self.bias = Tensor([0.0, 1.0], ms.float32)
        self.mask = Tensor(np.array([1, 0, 1], dtype=np.int32))
        self.eye = Tensor(np.eye(4, dtype=np.float32))

    def construct(self, x):
        return x * self.table + self.w
