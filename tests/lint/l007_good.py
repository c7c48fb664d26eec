import mindspore.nn as nn
import mindspore.ops as ops
import mindspore.ops.operations as P


class Flatten(nn.Cell):
    def __init__(self):
        super().__init__()
        self.reshape = P.Reshape()

    def construct(self, x, mask):
        b = x.shape[0]
        y = P.Reshape()(x, (-1, 4))
        z = self.reshape(x, (b, -1))
        w = x.view(-1)
        sel = ops.select(mask, x, ops.zeros_like(x))
        v = sel.reshape(-1, 4)
        return y, z, w, v
