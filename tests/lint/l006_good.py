import mindspore.nn as nn
import mindspore.ops as ops
from mindspore import Parameter, Tensor
import numpy as np


class Stateful(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)
        self.ema = Parameter(Tensor(np.zeros(4, np.float32)), name="ema")
        self.build()

    def build(self):
        self.act = nn.ReLU()

    def construct(self, x):
        last = x
        ops.assign(self.ema, self.ema * 0.9 + x.mean())
        self.ema[0] = 1.0
        return self.act(self.dense(last))
