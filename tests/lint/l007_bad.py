import mindspore.nn as nn
import mindspore.ops as ops
import mindspore.ops.operations as P


class Select(nn.Cell):
    def __init__(self):
        super().__init__()
        self.reshape = P.Reshape()
        self.masked_select = ops.MaskedSelect()

    def construct(self, x, mask):
        sel = ops.masked_select(x, mask)
        a = sel.view(-1, 4)  # expect: MS-L007
        pos = x[x > 0]
        b = ops.reshape(pos, (-1, 2))  # expect: MS-L007
        idx = ops.nonzero(mask)
        c = self.reshape(idx, (-1,))  # expect: MS-L007
        d = self.masked_select(x, mask)
        e = d.reshape(2, -1)  # expect: MS-L007
        return a, b, c, e
