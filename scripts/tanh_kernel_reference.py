#!/usr/bin/env python3
"""Independent high-precision reference values for the infinite-width tanh NNGP/NTK (issue #15).

Method (deliberately different from ntk4j's Java G10K21 code): mpmath tanh-sinh quadrature at 20 significant
digits, on the conditional form u = s1 z, v = s2 (c z + sqrt(1-c^2) w), integrating z and w over the whole real
line split at the points where tanh changes (z = 0, w = -c z / sqrt(1-c^2)) and at w = 0.  At c = 1 the integral is 1-D.

Recursion (neural-tangents convention, NTK parameterisation, K0 = x.x'/n0):
  S1 = sw^2 x.x'/n0 + sb^2,  T1 = S1
  S_{l+1} = sw^2 E[phi(u)phi(v)] + sb^2,  T_{l+1} = S_{l+1} + sw^2 E[phi'(u)phi'(v)] T_l
(Lee et al. 2018 eq. (4); Jacot et al. 2018 Thm. 1).  Signal propagation: q* fixed point of
q -> sw^2 E[tanh(sqrt(q) z)^2] + sb^2, chi1 = sw^2 E[sech^4(sqrt(q*) z)] (Poole et al. 2016 eq. (3),
Schoenholz et al. 2017 eq. (5)).

Run: python3 scripts/tanh_kernel_reference.py [grid:0..3]   (takes ~10-30 min at 20 digits; prints the values hard-coded in
src/test/java/org/ntk4j/theory/TanhKernelReferenceTest.java)
"""
import mpmath as mp

mp.mp.dps = 20
INF = mp.inf


def phi(x):
    return mp.tanh(x)


def dphi(x):
    return mp.sech(x) ** 2


def npdf(z):
    return mp.exp(-z * z / 2) / mp.sqrt(2 * mp.pi)


def expect2(f, q11, q12, q22):
    """E[f(u) f(v)], (u, v) ~ N(0, [[q11, q12], [q12, q22]])."""
    s1, s2 = mp.sqrt(q11), mp.sqrt(q22)
    c = q12 / (s1 * s2) if s1 > 0 and s2 > 0 else mp.mpf(0)
    if c > 1:
        c = mp.mpf(1)
    sc = mp.sqrt(1 - c * c)
    if sc == 0:
        return mp.quad(lambda z: npdf(z) * f(s1 * z) * f(s2 * c * z), [-INF, 0, INF])

    def inner(z):
        # split at the Gaussian's centre and at w0 = -c z / sc, where tanh changes (far away when c -> 1)
        w0 = -c * z / sc
        pts = [-INF] + sorted({mp.mpf(0), w0}) + [INF]
        return mp.quad(lambda w: npdf(w) * f(s2 * (c * z + sc * w)), pts)

    return mp.quad(lambda z: npdf(z) * f(s1 * z) * inner(z), [-INF, 0, INF])


def kernel(x, y, depth, sw, sb):
    n0 = len(x)
    dot = lambda a, b: sum(mp.mpf(p) * mp.mpf(q) for p, q in zip(a, b))
    sw2, sb2 = mp.mpf(sw) ** 2, mp.mpf(sb) ** 2
    s11 = sw2 * dot(x, x) / n0 + sb2
    s22 = sw2 * dot(y, y) / n0 + sb2
    s12 = sw2 * dot(x, y) / n0 + sb2
    th = s12
    for _ in range(1, depth):
        v12 = expect2(phi, s11, s12, s22)
        vd = expect2(dphi, s11, s12, s22)
        v11 = expect2(phi, s11, s11, s11)
        v22 = expect2(phi, s22, s22, s22)
        s11, s22 = sw2 * v11 + sb2, sw2 * v22 + sb2
        s12 = sw2 * v12 + sb2
        th = s12 + sw2 * vd * th
    return s12, th


def qstar(sw, sb, q0=1):
    sw2, sb2 = mp.mpf(sw) ** 2, mp.mpf(sb) ** 2
    # Newton-free: iterate to a fixed point (contracting for these parameters), then polish with findroot
    g = lambda q: sw2 * mp.quad(lambda z: npdf(z) * mp.tanh(mp.sqrt(q) * z) ** 2, [-INF, 0, INF]) + sb2
    q = mp.mpf(q0)
    for _ in range(200):
        q = g(q)
    q = mp.findroot(lambda t: g(t) - t, q)
    chi1 = sw2 * mp.quad(lambda z: npdf(z) * mp.sech(mp.sqrt(q) * z) ** 4, [-INF, 0, INF])
    return q, chi1


def main(part=None):
    """part None: everything; "grid:<i>": only the depth-2 grid point i (to run the slow 2-D cases in parallel)."""
    r3 = mp.sqrt(3)
    rho = mp.mpf("0.999999")
    # inputs in 3-D with x.x/n0 = 1 (and 4/3 for the unequal-norm pair)
    pairs = {
        "orthogonal": ([r3, 0, 0], [0, r3, 0]),
        "rho=0.999999": ([r3, 0, 0], [r3 * rho, r3 * mp.sqrt(1 - rho ** 2), 0]),
        "rho=1": ([r3, 0, 0], [r3, 0, 0]),
        "rho=0.5 unequal norms": ([r3, 0, 0], [mp.mpf(2), 2 * mp.sqrt(2), 0]),
    }
    # the CLI examples: `theory ntk --inputs` row (3,0,0), depth 2, sw 2, sb 0.5; `theory ntk --angles`
    # (x = (1, 0), depth 3 default), sw 3, sb 0, angle 0
    grid = [(3, 1), (2, "0.5"), ("1.414", "0.1"), (1, 0)]
    if part is not None:
        grid = [grid[int(part.split(":")[1])]]
    else:
        part = ""
    if not part.startswith("grid"):
        examples_and_signal()
    for sw, sb in grid:
        for name, (x, y) in pairs.items():
            k, t = kernel(x, y, 2, mp.mpf(sw), mp.mpf(sb))
            print(f"depth=2 sw={sw} sb={sb} {name}: nngp={mp.nstr(k, 17)} ntk={mp.nstr(t, 17)}", flush=True)


def examples_and_signal():
    k, t = kernel([3, 0, 0], [3, 0, 0], 2, mp.mpf(2), mp.mpf("0.5"))
    print(f"cli inputs (3,0,0) depth=2 sw=2 sb=0.5: nngp={mp.nstr(k, 17)} ntk={mp.nstr(t, 17)}", flush=True)
    for depth in (2, 3):
        k, t = kernel([1, 0], [1, 0], depth, mp.mpf(3), mp.mpf(0))
        print(f"cli angles angle 0 depth={depth} sw=3 sb=0: nngp={mp.nstr(k, 17)} ntk={mp.nstr(t, 17)}", flush=True)
    for sw, sb in [(3, 0), (2, "0.5"), ("1.414", "0.1"), (3, 1)]:
        q, chi = qstar(mp.mpf(sw), mp.mpf(sb))
        print(f"signal sw={sw} sb={sb}: qstar={mp.nstr(q, 17)} chi1={mp.nstr(chi, 17)}", flush=True)


if __name__ == "__main__":
    import sys
    main(sys.argv[1] if len(sys.argv) > 1 else None)
