import mindspore.nn as nn

STEP = 0


class Counter(nn.Cell):
    def __init__(self):
        super().__init__()
        self.dense = nn.Dense(4, 4)

    def construct(self, x):
        global STEP  # expect: MS-L011
        STEP = STEP + 1
        return self.dense(x)
