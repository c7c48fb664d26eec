import mindspore.nn as nn


class Branches(nn.Cell):
    def __init__(self):
        super().__init__()
        self.cfg = {"a": 1.0, "b": 2.0}
        self.dense = nn.Dense(4, 4)

    def construct(self, x, feats):
        for k, v in self.cfg.items():  # expect: MS-L003
            x = x * v
        for k in self.cfg:  # expect: MS-L003
            x = x + 1
        for name in feats.keys():  # expect: MS-L003
            x = x + feats[name]
        return self.dense(x)
