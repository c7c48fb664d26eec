import mindspore as ms
import mindspore.nn as nn
import mindspore.ops as ops

GLOBAL_STEP = 0


def bump_step():
    global GLOBAL_STEP  # expect: MS-L011
    GLOBAL_STEP += 1
    return GLOBAL_STEP


def clip(x, lo, hi):
    return ops.clip_by_value(x, lo, hi)


def batches(data, n):
    for i in range(0, len(data), n):
        yield data[i:i + n]


class GreedyDecoder(nn.Cell):
    def __init__(self, vocab, hidden, eos_id=2):
        super().__init__()
        self.embed = nn.Embedding(vocab, hidden)
        self.cell = nn.LSTMCell(hidden, hidden)
        self.out = nn.Dense(hidden, vocab)
        self.hidden = hidden
        self.eos = eos_id
        self.gates = nn.CellList([nn.Dense(hidden, hidden), nn.Dense(hidden, hidden)])
        self.norms = nn.CellList([nn.LayerNorm((hidden,)), nn.LayerNorm((hidden,))])
        self.heads = nn.CellDict({"lm": nn.Dense(hidden, vocab), "cls": nn.Dense(hidden, 2)})
        self.cfg = {"beam": 1, "len_penalty": 1.0}
        self.order = sorted(self.cfg.keys())

    def construct(self, enc, start_tokens, max_steps):
        batch = enc.shape[0]
        h = ops.zeros((batch, self.hidden), ms.float32)
        c = ops.zeros((batch, self.hidden), ms.float32)
        tok = start_tokens
        outs = ()
        for t in range(max_steps):  # expect: MS-L004
            h, c = self.cell(self.embed(tok), (h, c))
            for gate, norm in zip(self.gates, self.norms):
                h = norm(gate(h))
            h = h + ops.randn(h.shape) * 0.01  # expect: MS-L008
            logits = self.out(clip(h, -5.0, 5.0))
            tok = logits.argmax(-1)
            outs += (tok,)
            if (tok == self.eos).all():  # expect: MS-L004
                break
        print(f"decoded {len(outs)} steps")
        extra = ()
        for name, head in self.heads.items():  # expect: MS-L003
            extra += (head(h),)
        step = bump_step()
        return ops.stack(outs, axis=1), extra, step
