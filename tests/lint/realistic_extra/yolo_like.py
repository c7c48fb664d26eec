import numpy as np
import mindspore as ms
from mindspore import nn, ops, Tensor


class ConvBNAct(nn.Cell):
    def __init__(self, cin, cout, k=1, s=1):
        super(ConvBNAct, self).__init__()
        self.conv = nn.Conv2d(cin, cout, k, s, pad_mode="same", has_bias=False)
        self.bn = nn.BatchNorm2d(cout, momentum=0.97, eps=1e-3)
        self.act = nn.SiLU()

    def construct(self, x):
        return self.act(self.bn(self.conv(x)))


class DetectHead(nn.Cell):
    def __init__(self, nc=80, anchors=((10, 13, 16, 30), (30, 61, 62, 45)), ch=(128, 256), conf_thresh=0.25):
        super(DetectHead, self).__init__()
        self.nc = nc
        self.no = nc + 5
        self.nl = len(anchors)
        self.na = len(anchors[0]) // 2
        self.anchors = Tensor(np.array(anchors).reshape(self.nl, -1, 2), ms.float32)
        self.strides = (8, 16)
        self.m = nn.CellList([nn.Conv2d(c, self.no * self.na, 1, has_bias=True) for c in ch])
        self.conf_thresh = conf_thresh
        self.sigmoid = ops.Sigmoid()
        self.offsets = Tensor(np.linspace(0, 1, 16))  # expect: MS-L014

    def _make_grid(self, nx, ny):
        yv, xv = ops.meshgrid(ops.arange(ny), ops.arange(nx), indexing="ij")
        return ops.stack((xv, yv), 2).view(1, 1, ny, nx, 2).astype(ms.float32)

    def construct(self, feats):
        z = ()
        for i in range(self.nl):
            x = self.m[i](feats[i])
            bs, _, ny, nx = x.shape
            x = x.view(bs, self.na, self.no, ny, nx).transpose((0, 1, 3, 4, 2))
            if not self.training:
                y = self.sigmoid(x)
                grid = self._make_grid(nx, ny)
                xy = (y[..., 0:2] * 2.0 - 0.5 + grid) * self.strides[i]
                z += (ops.concat((xy, y[..., 2:]), -1).view(bs, -1, self.no),)
        pred = ops.concat(z, 1)
        return self.postprocess(pred)

    def postprocess(self, pred):
        conf = pred[..., 4]
        keep = conf > self.conf_thresh
        boxes = pred[keep]
        boxes = boxes.reshape(-1, self.no)  # expect: MS-L007
        scores = boxes[:, 4]
        order = np.argsort(scores.asnumpy())[::-1]  # expect: MS-L005
        kept = []
        while order.size > 0:  # expect: MS-L004
            kept.append(order[0])
            order = order[1:]
        return boxes, Tensor(np.array(kept))  # expect: MS-L005, MS-L014
