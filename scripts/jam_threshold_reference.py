#!/usr/bin/env python3
# Independent reference for issue #41 (jams located exactly): not run by the tests; a Rust test
# of the desingularised slip is to compare with its threshold 0.4798556 l/tau_c.
"""Independent jam threshold of a slipping rimless wheel (P2, Or, Sec. 3.3), via the
Genot-Brogliato desingularisation dt = B ds.

Units: m = l = 1, g = 1 + kappa, so P2's tau_c = sqrt(l (1 + kappa) / g) = 1 (library's
RimlessWheel::tau_c); speeds are in l/tau_c.
Coordinates q = (x, y, theta): stance tip along (downhill +) / normal to the slope, spoke angle
from the normal. Contact closed (y = y' = y'' = 0), slipping forward, sigma = sgn(x') = +1.
Slip state: (theta, w = theta', v = x').

Derivation (by hand, from T = m/2 |d/dt hub|^2 + I/2 w^2, V = m g (y cos a - x sin a + l cos(a+th))):
  M = [[m, 0, m l c], [0, m, -m l s], [m l c, -m l s, m l^2 (1+k)]],   det M = m^3 l^2 k
  row y of M^-1:  (-s c, k + s^2, s/l) / (m k)
  A = w_n^T M^-1 (H + G)  = g cos(a) - l w^2 cos(th)                         (= P2 eq. 31)
  B = w_n^T M^-1 (w_n - sigma mu w_t) = (k + s^2 + sigma mu s c) / (m k)       (P2 eq. 31 / k)
  f_n = A / B;  consistent slip (y'' = 0):
  th'' = [m s A + sigma mu c f_n] / (m l (k + s^2))                          (= P2 eq. 30)
  x''  = l w^2 s + g sin(a) - l c th'' - sigma mu f_n / m
Desingularised (d/ds = B d/dt, f_n B = A):
  th' = B w,  w' = [m s A B + sigma mu c A] / (m l D),  v' = B (l w^2 s + g sin a) - l c w' - sigma mu A / m,
  t' = B,  (int f_n dt)' = A.
Near p1 = (th1, w1) (A = B = 0) we integrate the deviations d = th - th1, u = w - w1, with
  B = sqrt(1 + mu^2) sin(d - beta) sin(d) / (m k)          (exact rewrite of P2 eq. 32)
  A = w1^2 * 2 sin(th1 + d/2) sin(d/2) - (2 w1 u + u^2) cos(th1 + d)
so that A and B keep full relative precision as (d, u) -> 0 (p1 is an equilibrium of the
desingularised field for every v; theta and w do not depend on v, so v(s) = x0 + V(s)).
"""
import json
import sys
import numpy as np
from scipy.integrate import solve_ivp

N_SPOKES, KAPPA, ALPHA, MU, SIGMA = 10, 0.01, np.radians(8.0), 0.30, 1.0
M, L, G = 1.0, 1.0, 1.0 + KAPPA
TH0, W0 = -np.pi / N_SPOKES + 0.005, 0.570422
R_MU = np.sqrt(1 + MU * MU)
GAMMA = np.arctan(MU)
BETA = np.arccos((1 + 2 * KAPPA) / R_MU)
TH1 = -0.5 * (SIGMA * GAMMA + BETA)                        # P2 eq. (34), first root of B
W1 = np.sqrt(G * np.cos(ALPHA) / (L * np.cos(TH1)))        # A(th1, w1) = 0


# ---------- the library's formulas, transliterated (walkers.rs RimlessWheel + walking/mod.rs ab_terms) ----------
def lib_ab_terms(th, w, v, sigma=SIGMA):
    s, c = np.sin(th), np.cos(th)
    Mm = np.array([[M, 0, M * L * c], [0, M, -M * L * s], [M * L * c, -M * L * s, M * L * L * (1 + KAPPA)]])

    def bias(w_):  # -(H + G), eq. (23)
        h = np.array([-M * L * w_**2 * s, -M * L * w_**2 * c, 0.0])
        gv = np.array([-M * G * np.sin(ALPHA), M * G * np.cos(ALPHA), -M * G * L * np.sin(ALPHA + th)])
        return -(h + gv)
    wn, wt = np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0])
    minv_wn = np.linalg.solve(Mm, wn)
    h0 = bias(0.0)
    a0 = -minv_wn @ h0
    av = -minv_wn @ (bias(w) - h0)           # stance contact: jacobian_dot_v = (0, 0)
    d, cc = minv_wn @ wn, (minv_wn @ wt) * MU
    return a0 + av, d - sigma * cc, abs(a0) + abs(av), d + abs(cc)


# ---------- own closed forms ----------
def ab_plain(th, w):
    s, c = np.sin(th), np.cos(th)
    return G * np.cos(ALPHA) - L * w * w * c, (KAPPA + s * s + SIGMA * MU * s * c) / (M * KAPPA)


def ab_dev(d, u):
    """A, B at theta = TH1 + d, w = W1 + u, accurate as d, u -> 0 (sigma = +1)."""
    A = W1 * W1 * 2 * np.sin(TH1 + d / 2) * np.sin(d / 2) - (2 * W1 * u + u * u) * np.cos(TH1 + d)
    B = R_MU * np.sin(d - BETA) * np.sin(d) / (M * KAPPA)
    return L * A, B


def scales(th, w):
    """Term magnitudes of A and B (as ab_terms' a_scale, b_scale)."""
    s, c = np.sin(th), np.cos(th)
    return abs(G * np.cos(ALPHA)) + abs(L * w * w * c), (KAPPA + s * s + MU * abs(s * c)) / (M * KAPPA)


def rhs(s_, y):
    """d/ds of y = (d, u, v, t, J) with J = int f_n dt."""
    d, u = y[0], y[1]
    th, w = TH1 + d, W1 + u
    sn, c = np.sin(th), np.cos(th)
    A, B = ab_dev(d, u)
    D = KAPPA + sn * sn
    wp = (M * sn * A * B + SIGMA * MU * c * A) / (M * L * D)          # = B * theta''
    vp = B * (L * w * w * sn + G * np.sin(ALPHA)) - L * c * wp - SIGMA * MU * A / M   # = B * x''
    return [B * w, wp, vp, B, A]


def run(x0, rtol, method="DOP853", s_max=20.0, stop=1e-15, dense=False):
    """Slip from (TH0, W0, x0). Events: v = 0 (slip stops: stick or reversal), A = 0 with B > 0
    (separation), arrival at p1 (A and B both below `stop` of their term scales).
    Returns (outcome, info)."""
    ev_v = lambda s_, y: y[2]
    ev_a = lambda s_, y: ab_dev(y[0], y[1])[0]
    ev_b = lambda s_, y: ab_dev(y[0], y[1])[1]
    def ev_p1(s_, y):
        A, B = ab_dev(y[0], y[1])
        a_s, b_s = scales(TH1 + y[0], W1 + y[1])
        return max(abs(A) / a_s, abs(B) / b_s) - stop
    for e, dirn in ((ev_v, -1), (ev_a, -1), (ev_b, -1), (ev_p1, -1)):
        e.terminal, e.direction = True, dirn
    # atol: absolute for v, t, J (O(0.1..1)); d, u decay to 0 -> tiny atol keeps the control relative
    atol = np.array([1e-300, 1e-300, 1e-3 * rtol, 1e-3 * rtol, 1e-3 * rtol])
    y0 = [TH0 - TH1, W0 - W1, x0, 0.0, 0.0]
    sol = solve_ivp(rhs, (0, s_max), y0, method=method, rtol=rtol, atol=atol,
                    events=[ev_v, ev_a, ev_b, ev_p1], dense_output=dense)
    y = sol.y[:, -1]
    A, B = ab_dev(y[0], y[1])
    a_s, b_s = scales(TH1 + y[0], W1 + y[1])
    info = dict(s=sol.t[-1], theta=TH1 + y[0], w=W1 + y[1], d=y[0], u=y[1], v=y[2], t=y[3], J=y[4],
                A=A, B=B, a_rel=A / a_s, b_rel=B / b_s, nfev=sol.nfev, sol=sol)
    if sol.t_events[0].size:
        return "slip-stop", info
    if sol.t_events[1].size:
        return ("separation" if B > 0 else "A=0,B<=0"), info
    if sol.t_events[2].size:
        return "B=0 crossed", info
    if sol.t_events[3].size:
        return ("jam" if y[2] > 0 and A > 0 else "p1-not-jam"), info
    return "unresolved", info


def bisect(rtol, lo=0.3, hi=0.6, tol=1e-8, method="DOP853"):
    jam = lambda x: run(x, rtol, method)[0] == "jam"
    assert not jam(lo) and jam(hi)
    while hi - lo > tol * hi:
        mid = 0.5 * (lo + hi)
        if jam(mid):
            hi = mid
        else:
            lo = mid
    return lo, hi


def main():
    print(f"n={N_SPOKES} kappa={KAPPA} alpha=8deg mu={MU} sigma=+1  theta0={TH0:.12f} w0={W0}")
    mu_min = 2 * np.sqrt(KAPPA + KAPPA**2)
    lam = 2 * KAPPA / (np.tan(TH1) * (np.sin(2 * TH1) + MU * np.cos(2 * TH1)))
    print(f"mu_min={mu_min:.6f} mu_c={2 / np.sqrt(3) * mu_min:.6f}; p1: theta1={TH1:.12f} w1={W1:.12f};"
          f" lambda (slip.rs formula)={lam:.6f}")
    h = 1e-7
    J = np.zeros((2, 2))
    for j in range(2):
        e = np.zeros(2); e[j] = h
        J[:, j] = (np.array(rhs(0, [e[0], e[1], 0, 0, 0])[:2]) - np.array(rhs(0, [-e[0], -e[1], 0, 0, 0])[:2])) / (2 * h)
    ev = np.sort(np.linalg.eigvals(J).real)
    print(f"Jacobian of (d,u)-field at p1: {J.tolist()}\n  eigenvalues {ev}, slow/fast = {ev[1] / ev[0]:.6f}")

    print("A, B: own closed form / deviation form / library formulas (numpy transliteration):")
    for th, w in [(TH0, W0), (-0.28, 0.6), (TH1 + 1e-3, W1 - 2e-3), (0.1, 0.9)]:
        Ap, Bp = ab_plain(th, w)
        Ad, Bd = ab_dev(th - TH1, w - W1)
        Al, Bl, aS, bS = lib_ab_terms(th, w, 0.5)
        print(f"  th={th:+.6f} w={w:.6f}: A {Ap:+.15e} {Ad:+.15e} {Al:+.15e} | B {Bp:+.15e} {Bd:+.15e} {Bl:+.15e}")

    res = {}
    for rtol in (1e-12, 1e-13):
        # v decouples: V(s) = v(s) - x0 does not depend on x0; threshold = -min_s V(s)
        o, inf = run(10.0, rtol, dense=True)
        sol = inf["sol"]
        ss = np.linspace(0, inf["s"], 200001)
        Vs = sol.sol(ss)[2] - 10.0
        mono = bool(np.all(np.diff(Vs) <= 0))
        direct = -min(Vs.min(), inf["v"] - 10.0)
        lo, hi = bisect(rtol)
        res[rtol] = (direct, lo, hi)
        print(f"rtol={rtol:g}: x0=10 -> {o} at s={inf['s']:.4f} t={inf['t']:.12f} (A_rel={inf['a_rel']:.1e}"
              f" B_rel={inf['b_rel']:.1e}, nfev={inf['nfev']}); V monotone decreasing: {mono}")
        print(f"   direct threshold -V(p1) = {direct:.12f};  bisection: jam threshold in [{lo:.12f}, {hi:.12f}]")
    d12, d13 = res[1e-12][2], res[1e-13][2]
    print(f"relative difference of thresholds rtol 1e-12 vs 1e-13: {abs(d12 - d13) / d13:.2e}")
    lo, hi = bisect(1e-12, method="Radau")
    print(f"Radau rtol 1e-12 bisection: [{lo:.12f}, {hi:.12f}]")
    print(f"library 0.47980 vs this: {(0.47980 - d13) / d13:+.3e} relative")

    for x0 in (0.4745, 0.479, 0.4798, d13 * (1 - 1e-7), d13 * (1 + 1e-7), 0.5):
        o, inf = run(x0, 1e-13)
        A, B = inf["A"], inf["B"]
        print(f"x0={x0:.9f}: {o:9s} s={inf['s']:.4f} t={inf['t']:.12f} theta-th1={inf['d']:+.3e} w-w1={inf['u']:+.3e}"
              f" v={inf['v']:+.3e} A_rel={inf['a_rel']:.2e} B_rel={inf['b_rel']:.2e} f_n=A/B={A / B:.3e} J={inf['J']:.9f}")


if __name__ == "__main__":
    main()
