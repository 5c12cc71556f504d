#!/usr/bin/env python3
"""High-precision reference for the infinite-width NNGP/NTK at every angle, near-parallel and near-antiparallel
inputs included (the values hard-coded in src/test/java/org/ntk4j/theory/KernelAnglePrecisionTest.java).

Method: the neural-tangents recursion (NTK parameterisation, K0 = x.x'/n0, as org.ntk4j.theory.MlpKernel) in mpmath
at 50 significant digits, where arccos near c = +-1 loses nothing. The inputs are the exact binary doubles the Java
test uses (x = (1, 0) or (2, 0), x' = (a, b) with a, b decimal literals), converted exactly. Closed forms for ReLU
(arc-cosine kernels, Cho & Saul 2009), erf (Williams 1997) and the identity; tanh by mpmath tanh-sinh quadrature on
the conditional form of the bivariate Gaussian at 30 digits (the quadrature's own error is below 1e-20 here).

  S1 = sw^2 x.x'/n0 + sb^2,  T1 = S1
  S_{l+1} = sw^2 E[phi(u)phi(v)] + sb^2,  T_{l+1} = S_{l+1} + sw^2 E[phi'(u)phi'(v)] T_l

Run: /usr/bin/python3 scripts/ntk_angle_reference.py [relu|erf|linear|tanh]   (tanh takes minutes)
"""
import sys
import mpmath as mp

mp.mp.dps = 50
INF = mp.inf

# x' = (a, b) against x = (1, 0): angles 0, 1e-8, 1e-4, pi/4, pi/2, 3pi/4, pi - 1e-4, pi - 1e-8, pi; and unequal norms
PAIRS = [
    ("1", "0"), ("1", "1e-8"), ("1", "1e-4"), ("1", "1"), ("0", "1"), ("-1", "1"),
    ("-1", "1e-4"), ("-1", "1e-8"), ("-1", "0"), ("3", "3e-8"), ("-3", "3e-8"),
]
CONFIGS = [(2, "1.414", "0.1"), (3, "1.414", "0.1"), (3, "1", "0"), (5, "2", "0.5")]


def exact(s):
    """the double nearest the decimal literal s, exactly (as Java's and Python's parsers give it)."""
    return mp.mpf(float(s))


def relu(q11, q12, q22):
    a = mp.sqrt(q11 * q22)
    c = q12 / a
    c = max(min(c, mp.mpf(1)), mp.mpf(-1))
    th = mp.acos(c)
    return a / (2 * mp.pi) * (mp.sin(th) + (mp.pi - th) * mp.cos(th)), (mp.pi - th) / (2 * mp.pi)


def erf(q11, q12, q22):
    d = (1 + 2 * q11) * (1 + 2 * q22)
    return 2 / mp.pi * mp.asin(2 * q12 / mp.sqrt(d)), 4 / mp.pi / mp.sqrt(d - 4 * q12 * q12)


def linear(q11, q12, q22):
    return q12, mp.mpf(1)


def npdf(z):
    return mp.exp(-z * z / 2) / mp.sqrt(2 * mp.pi)


def expect2(f, q11, q12, q22):
    s1, s2 = mp.sqrt(q11), mp.sqrt(q22)
    c = q12 / (s1 * s2)
    c = max(min(c, mp.mpf(1)), mp.mpf(-1))
    sc = mp.sqrt(1 - c * c)
    if sc == 0:
        return mp.quad(lambda z: npdf(z) * f(s1 * z) * f(s2 * c * z), [-INF, 0, INF])

    def inner(z):
        w0 = -c * z / sc
        pts = [-INF] + sorted({mp.mpf(0), w0}) + [INF]
        return mp.quad(lambda w: npdf(w) * f(s2 * (c * z + sc * w)), pts)

    return mp.quad(lambda z: npdf(z) * f(s1 * z) * inner(z), [-INF, 0, INF])


def tanh(q11, q12, q22):
    return expect2(mp.tanh, q11, q12, q22), expect2(lambda x: mp.sech(x) ** 2, q11, q12, q22)


def kernel(act, x, y, depth, sw, sb):
    n0 = len(x)
    sw2, sb2 = exact(sw) ** 2, exact(sb) ** 2
    dot = lambda p, q: sum(a * b for a, b in zip(p, q))
    s11, s22, s12 = sw2 * dot(x, x) / n0 + sb2, sw2 * dot(y, y) / n0 + sb2, sw2 * dot(x, y) / n0 + sb2
    th = s12
    for _ in range(1, depth):
        v12, vd = act(s11, s12, s22)
        v11 = act(s11, s11, s11)[0]
        v22 = act(s22, s22, s22)[0]
        s11, s22, s12 = sw2 * v11 + sb2, sw2 * v22 + sb2, sw2 * v12 + sb2
        th = s12 + sw2 * vd * th
    return s12, th


def main(which):
    acts = {"relu": relu, "erf": erf, "linear": linear, "tanh": tanh}
    configs = CONFIGS if which != "tanh" else [(3, "1.414", "0.1")]
    pairs = PAIRS if which != "tanh" else [("1", "1e-8"), ("0", "1"), ("-1", "1e-8"), ("1", "0")]
    if which == "tanh":
        mp.mp.dps = 30
    for depth, sw, sb in configs:
        for a, b in pairs:
            x = [exact("1"), exact("0")]
            y = [exact(a), exact(b)]
            k, t = kernel(acts[which], x, y, depth, sw, sb)
            print(f'{{"{which}", {depth}, {sw}, {sb}, {a}, {b}, {mp.nstr(k, 20)}, {mp.nstr(t, 20)}}},', flush=True)


if __name__ == "__main__":
    for w in (sys.argv[1:] or ["relu", "erf", "linear"]):
        main(w)
