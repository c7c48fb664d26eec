import mindspore.nn as nn


class Branches(nn.Cell):
    def __init__(self):
        super().__init__()
        cfg = {"a": 1.0, "b": 2.0}
        self.scales = tuple(v for k, v in sorted(cfg.items()))
        self.cells = nn.CellList([nn.Dense(4, 4) for _ in cfg])

    def construct(self, x):
        for s in self.scales:
            x = x * s
        for cell in self.cells:
            x = cell(x)
        return x
