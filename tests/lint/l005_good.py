import math
import numpy as np
import mindspore as ms
import mindspore.nn as nn
import mindspore.numpy as mnp
import mindspore.ops as ops
from mindspore.ops import constexpr


@constexpr
def _scale(d):
    return float(np.sqrt(d))


class Pre(nn.Cell):
    def __init__(self, d=4):
        super().__init__()
        self.dense = nn.Dense(d, d)
        self.mean = ms.Tensor(np.array([0.5, 0.5, 0.5, 0.5], np.float32))
        self.scale = 1.0 / math.sqrt(d)
        self.d = d

    def construct(self, x):
        x = (x - self.mean) * self.scale
        x = mnp.clip(x, 0, 1)
        x = x * _scale(self.d)
        return ops.relu(self.dense(x))


def preprocess(path):
    # data-pipeline code, never called from construct
    img = np.load(path)
    return ms.Tensor(img.astype(np.float32))
