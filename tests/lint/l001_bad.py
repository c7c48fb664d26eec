import mindspore.nn as nn
import mindspore.ops as ops


class Heads(nn.Cell):
    def __init__(self, n):
        super().__init__()
        self.heads = nn.CellList([nn.Dense(8, 8) for _ in range(n)])

    def construct(self, x):
        outs = [h(x) for h in self.heads]  # expect: MS-L001
        total = sum(o.sum() for o in outs)  # expect: MS-L001
        names = {i: o for i, o in enumerate(outs)}  # expect: MS-L001
        uniq = {o.shape[0] for o in outs}  # expect: MS-L001
        return ops.stack(outs), total, names, uniq
