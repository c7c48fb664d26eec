import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops


class Net(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)

    def construct(self, x, ids, y):
        n = len(x)  # expect: MS-L002
        if 3 in ids:  # expect: MS-L002
            x = x * 2
        pairs = zip(x, y)  # expect: MS-L002
        if isinstance(y, ms.Tensor):  # expect: MS-L002
            y = y + 1
        for row in x:  # expect: MS-L002
            y = y + row
        return self.dense(x), n, pairs, y
