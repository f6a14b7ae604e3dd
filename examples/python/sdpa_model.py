"""A small attention model whose forward pass runs examples/flash_attn.tile
in place of torch.nn.functional.scaled_dot_product_attention, checked
against the same model with SDPA. Run on a GPU machine with torch:

    python3 examples/python/sdpa_model.py

(after ./build.sh; `pip install ./python` or TILEC_LIBRARY=build/libtilec.so).
"""
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import tilec  # noqa: E402

FLASH_ATTN = os.path.join(HERE, "..", "flash_attn.tile")


class Attention(torch.nn.Module):
    def __init__(self, dim, heads):
        super().__init__()
        self.heads = heads
        self.qkv = torch.nn.Linear(dim, 3 * dim, bias=False)
        self.out = torch.nn.Linear(dim, dim, bias=False)

    def forward(self, x, attend):
        b, s, e = x.shape
        q, k, v = self.qkv(x).view(b, s, 3, self.heads, e // self.heads).permute(2, 0, 3, 1, 4)
        o = attend(q.contiguous(), k.contiguous(), v.contiguous())
        return self.out(o.transpose(1, 2).reshape(b, s, e))


def tilec_attention(q, k, v):
    """O = softmax(Q K^T / sqrt(D)) V by flash_attn.tile, compiled for the
    heads and head size once (tilec.compile caches it; the batch and the
    sequence length are the kernel's dynamic sizes, read from the tensors)
    and launched on torch's stream."""
    b, h, s, d = q.shape
    kernel = tilec.compile(FLASH_ATTN, set={"H": h, "D": d, "causal": 0})
    o = torch.empty_like(q)
    kernel(q, k, v, o)
    return o


def main():
    torch.manual_seed(0)
    model = Attention(dim=1024, heads=8).cuda().half()
    x = torch.randn(2, 512, 1024, device="cuda", dtype=torch.float16)
    with torch.no_grad():
        want = model(x, lambda q, k, v: F.scaled_dot_product_attention(q, k, v))
        got = model(x, tilec_attention)
        got_again = model(x, tilec_attention)
        # another batch and sequence length: the same compiled kernel
        x2 = torch.randn(3, 200, 1024, device="cuda", dtype=torch.float16)
        want2 = model(x2, lambda q, k, v: F.scaled_dot_product_attention(q, k, v))
        got2 = model(x2, tilec_attention)
    torch.cuda.synchronize()
    err = (got.float() - want.float()).abs().max().item()
    scale = want.float().abs().max().item()
    print("max |tilec - sdpa| = %.3g (outputs up to %.3g), %d compile(s)" % (err, scale, tilec.compile_count()))
    assert err <= 2e-2 * max(1.0, scale), "the model's output differs from SDPA's"
    assert torch.equal(got, got_again), "two runs differ"
    err2 = (got2.float() - want2.float()).abs().max().item()
    assert err2 <= 2e-2 * max(1.0, want2.float().abs().max().item()), "at 3 x 200 the output differs from SDPA's"
    assert tilec.compile_count() == 1, "a forward pass compiled again"
    print("ok")


if __name__ == "__main__":
    main()
