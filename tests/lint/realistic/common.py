"""Shared building blocks (a separate file: the Cell base class and helpers are found across files)."""
import numpy as np
import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops
from mindspore import Parameter, Tensor
from mindspore.common.initializer import initializer, HeNormal


def conv_weight(shape):
    fan_in = shape[1] * shape[2] * shape[3]
    w = np.random.normal(0, np.sqrt(2.0 / fan_in), shape)
    return Tensor(w)  # expect: MS-L014


def conv3x3(cin, cout, stride=1):
    return nn.Conv2d(cin, cout, 3, stride=stride, pad_mode="pad", padding=1, has_bias=False)


def apply_act(x, act):
    if act == "relu":
        return ops.relu(x)
    return x


def topk_debug(x):
    print("activation stats", x.mean())  # expect: MS-L009
    return x


class BaseCell(nn.Cell):
    """Project base class: subclasses are Cells through it."""

    def __init__(self, name="base"):
        super().__init__()
        self.cell_name = name
        self.fp16 = False

    def cast_in(self, x):
        if self.fp16:
            return ops.cast(x, ms.float16)
        return x
