import mindspore.nn as nn
import mindspore.ops as ops


class Net(nn.Cell):
    def __init__(self, cfg):
        super().__init__()
        self.layers = nn.CellList([nn.Dense(4, 4), nn.Dense(4, 4)])
        self.use_bias = isinstance(cfg, dict) and cfg.get("bias", False)
        self.names = ("a", "b")

    def construct(self, x):
        n = len(self.layers)
        b = x.shape[0]
        for i in range(len(self.layers)):
            x = self.layers[i](x)
        if len(x.shape) == 2 and x.shape[1] * 2 == 8:
            x = x.reshape(b, -1)
        if "a" in self.names:
            x = x + n
        for layer, name in zip(self.layers, self.names):
            x = layer(x)
        if isinstance(self.names, tuple):
            x = x * 1
        return x
