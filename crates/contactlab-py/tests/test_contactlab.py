"""The Python package against the command line's JSON on the same models, and its errors."""

import json
import math
import subprocess
import tomllib

import numpy as np
import pytest

import contactlab

from helpers import EXAMPLES, ROOT, cli


def test_lcp_solve_matches_the_cli():
    data = tomllib.loads((EXAMPLES / "lcp" / "pd2.toml").read_text())
    r = contactlab.lcp.solve(np.array(data["M"]), np.array(data["q"]))
    c = cli("lcp", "solve", EXAMPLES / "lcp" / "pd2.toml")
    assert r.status == c["status"] == "solved"
    assert np.allclose(r.z, c["z"], rtol=0, atol=1e-12) and np.allclose(r.w, c["w"], rtol=0, atol=1e-12)
    assert r.violation == c["violation"] and r.pivots == c["pivots"] and "certified" not in c
    assert r.proof == c["proof"] == "interval" and r.proof_reason is None and "proof_reason" not in c
    assert isinstance(r.z, np.ndarray) and r.to_dict()["n"] == 2
    assert "LcpSolution(status='solved'" in repr(r)
    with pytest.raises(AttributeError):
        r.status = "other"


def test_lcp_no_solution_is_proved_and_classes_match():
    data = json.loads((EXAMPLES / "lcp" / "infeasible.json").read_text())
    r = contactlab.lcp.solve(np.array(data["M"]), np.array(data["q"]))
    assert r.status == "no-solution" and r.proof == "interval" and r.proof_reason is None
    c = cli("lcp", "classes", EXAMPLES / "lcp" / "pd2.toml")
    k = contactlab.lcp.classes(np.array(tomllib.loads((EXAMPLES / "lcp" / "pd2.toml").read_text())["M"]))
    assert k.to_dict() == c


def test_p1_classify_and_maps_match_the_cli():
    model = EXAMPLES / "two-contact" / "config-D.toml"
    r = contactlab.p1.classify(model, samples=401)
    c = cli("equilibrium", "classify", model, "--samples", 401)
    assert r.verdict == c["verdict"] == "reverse-chatter-unstable"
    assert r.theorem == c["theorem"] and r.to_dict() == c
    phi, R, G = contactlab.p1.maps(model, samples=401)
    assert phi.shape == R.shape == G.shape == (401,)
    assert -math.pi / 2 < phi[0] < phi[-1] < math.pi / 2
    # The fixed point the CLI reports is a fixed point of the returned R.
    fp = c["fixed_points"][0]["phi"]
    k = int(np.argmin(np.abs(phi - fp)))
    assert abs(R[k] - phi[k]) < 0.05


def test_models_from_dicts_equal_models_from_files():
    text = tomllib.loads((EXAMPLES / "two-contact" / "config-B.toml").read_text())
    assert contactlab.p1.classify(text, samples=201) == contactlab.p1.classify(
        EXAMPLES / "two-contact" / "config-B.toml", samples=201
    )


def test_fixture_and_eqset_match_the_cli():
    model = EXAMPLES / "fixture" / "disk-mu0.2-0.5.toml"
    r = contactlab.fixture.classify(model)
    c = cli("fixture", "classify", model)
    assert r.classification == c["classification"] and r.weakly_stable == c["weakly_stable"]
    rod = EXAMPLES / "eqset" / "rod-two-sliders.toml"
    a = contactlab.eqset.analyze(rod)
    c = cli("eqset", "analyze", rod)
    assert [s["theorem"] for s in a.sets] == [s["theorem"] for s in c["sets"]]
    assert a.c_star == pytest.approx(c["c_star"], rel=1e-15)
    assert a.c_star == pytest.approx(10 * (1 + math.cos(c["closed_form"]["theta_hat"])), rel=1e-9)
    assert a.to_dict() == c


def test_bad_input_raises_the_documented_exceptions():
    bad = tomllib.loads((EXAMPLES / "eqset" / "rod-two-sliders.toml").read_text())
    bad["mu1"] = -0.3
    with pytest.raises(ValueError, match="mu1"):
        contactlab.eqset.analyze(bad)
    with pytest.raises(ValueError):
        contactlab.lcp.solve(np.eye(2), np.ones(3))
    with pytest.raises(ValueError, match="2-D"):
        contactlab.lcp.solve(np.ones(3), np.ones(3))
    with pytest.raises(OSError):
        contactlab.p1.classify(EXAMPLES / "no-such-file.toml")
    assert issubclass(contactlab.NumericalError, RuntimeError)


def test_sweep_on_a_local_cluster_equals_one_process_and_the_cli_atlas():
    pytest.importorskip("dask.distributed")
    model = EXAMPLES / "two-contact" / "config-B.toml"
    vary = {"com_x": np.linspace(-0.05, 0.0, 6), "com_z": np.linspace(0.1, 0.16, 4)}
    from dask.distributed import Client, LocalCluster

    here = contactlab.sweep(model, vary, client=False, chunk_size=7, samples=201)
    # A cluster the caller made and passes in (as one on Slurm or Kubernetes would be).
    with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            spread = contactlab.sweep(model, vary, client=client, chunk_size=5, samples=201)
            default_chunks = contactlab.sweep(model, vary, client=client, samples=201)
    assert len(here) == 24 and here["verdict"].nunique() > 1
    assert here.equals(spread) and here.equals(default_chunks)
    c = cli("equilibrium", "atlas", model, "--vary", "com_x=-0.05:0.0:6", "--vary", "com_z=0.1:0.16:4", "--samples", 201)
    assert list(here["verdict"]) == [cell["verdict"] for cell in c["cells"]]
    # Each cell's verdict proved for every phi (interval arithmetic) or sampled only, as the CLI.
    assert list(here["proof"]) == [cell.get("proof") for cell in c["cells"]]
    assert set(here["proof"]) <= {"interval", "none"} and "interval" in set(here["proof"])
    assert np.allclose(here["com_x"], [cell["values"][0] for cell in c["cells"]], rtol=0, atol=1e-15)


def test_the_fig6_example_script_runs(tmp_path):
    pytest.importorskip("matplotlib")
    out = tmp_path / "atlas.png"
    script = ROOT / "examples" / "python" / "p1_fig6_atlas.py"
    import sys

    run = subprocess.run([sys.executable, str(script), str(out), "--cells", "9", "--samples", "101"],
                         capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr
    assert out.stat().st_size > 10_000
    assert "no-equilibrium" in run.stdout


def test_lcp_solve_all_matches_the_cli():
    path = EXAMPLES / "lcp" / "segment.toml"
    data = tomllib.loads(path.read_text())
    r = contactlab.lcp.solve_all(np.array(data["M"]), np.array(data["q"]))
    c = cli("lcp", "solve", path, "--all")
    assert r.to_dict() == c
    assert r.count == len(r.pieces) >= 1


def test_bad_sweeps_and_options_are_refused_before_any_work(monkeypatch):
    model = EXAMPLES / "two-contact" / "config-B.toml"
    # A value outside its key's range, or NaN: ValueError naming the key and the value, before
    # any cluster starts (client=None would start one).
    with pytest.raises(ValueError, match=r"mu1.*-0\.1"):
        contactlab.sweep(model, {"mu1": [0.2, -0.1]})
    with pytest.raises(ValueError, match="com_x.*nan|com_x.*NaN"):
        contactlab.sweep(model, cells={"com_x": [0.0, np.nan], "com_z": [0.1, 0.1]})
    fixture = EXAMPLES / "fixture" / "disk-mu0.2-0.5.toml"
    with pytest.raises(ValueError, match=r"mu\[0\]"):
        contactlab.sweep(fixture, cells={"mu[0]": [0.3, -1.0]})
    # output="xarray" without xarray: ImportError naming the extra, before any cell is computed.
    import sys

    monkeypatch.setitem(sys.modules, "xarray", None)  # (makes `import xarray` fail)
    calls = []
    monkeypatch.setattr(sys.modules["contactlab.sweep"], "_evaluate_chunk", lambda *a: calls.append(a) or [])
    with pytest.raises(ImportError, match=r"contactlab\[xarray\]"):
        contactlab.sweep(model, {"mu1": [0.2, 0.3]}, client=False, output="xarray")
    assert calls == []
    monkeypatch.undo()
    # Options named, whatever the wrong type.
    wheel = EXAMPLES / "walker" / "rimless-wheel.toml"
    with pytest.raises(ValueError, match="guess"):
        contactlab.walker.gait(wheel, guess="abc")
    with pytest.raises(ValueError, match="guess"):
        contactlab.walker.gait(EXAMPLES / "walker" / "compass-biped.toml", guess=5)
    with pytest.raises(ValueError, match="state"):
        contactlab.walker.slip(wheel, state=["x", 1])
    assert contactlab.__version__.count(".") == 2


def test_sweep_as_an_xarray_dataset():
    pytest.importorskip("xarray")
    model = EXAMPLES / "two-contact" / "config-B.toml"
    vary = {"com_x": np.linspace(-0.05, 0.0, 3), "com_z": np.linspace(0.1, 0.16, 2)}
    df = contactlab.sweep(model, vary, client=False, samples=101)
    ds = contactlab.sweep(model, vary, client=False, samples=101, output="xarray")
    assert dict(ds.sizes) == {"com_z": 2, "com_x": 3}
    assert df["verdict"].nunique() > 1  # (so that a transposed reshape would show)
    for _, row in df.iterrows():
        cell = ds.sel(com_x=row["com_x"], com_z=row["com_z"])
        assert str(cell["verdict"].values) == row["verdict"]
    with pytest.raises(ValueError, match="output"):
        contactlab.sweep(model, vary, client=False, output="csv")


def test_lcp_solve_takes_any_array_like_with_the_same_answer():
    M = np.array([[2.0, 1.0], [1.0, 2.0]])
    q = np.array([-5.0, -6.0])
    want = contactlab.lcp.solve(M, q)
    assert isinstance(want, contactlab.lcp.LcpSolution)
    # lists, integers, a transposed (non-contiguous) view, a column vector, an unaligned buffer
    raw = np.zeros(5 * 8 + 1, dtype=np.uint8)[1:].view(np.float64)
    raw[:4] = M.reshape(-1)
    unaligned = raw[:4].reshape(2, 2)
    assert not unaligned.flags.aligned
    for MM, qq in [(M.tolist(), q.tolist()), (np.array([[2, 1], [1, 2]]), q), (M, q.reshape(2, 1)), (unaligned, q)]:
        r = contactlab.lcp.solve(MM, qq)
        assert r.status == "solved" and np.array_equal(r.z, want.z) and np.array_equal(r.w, want.w)
    # A non-symmetric M read through strides: Fortran order, every other row and column,
    # reversed axes; each must be read as the matrix it is, not its transpose.
    A = np.array([[3.0, 2.0], [0.5, 1.0]])
    b = np.array([-4.0, -1.0])
    base = contactlab.lcp.solve(A, b)
    assert base.status == "solved" and not np.array_equal(base.z, contactlab.lcp.solve(A.T, b).z)
    big = np.zeros((4, 4))
    big[::2, ::2] = A
    for view in [np.asfortranarray(A), big[::2, ::2], A[::-1, ::-1][::-1, ::-1], np.ascontiguousarray(A.T).T]:
        r = contactlab.lcp.solve(view, b)
        assert np.array_equal(r.z, base.z) and np.array_equal(r.w, base.w)
    with pytest.raises(ValueError, match="read-only"):
        r.z[0] = 1.0
    assert r["pivots"] == r.pivots and list(r.keys()) == list(r.to_dict())
    with pytest.raises(ValueError, match="M: not an array of numbers"):
        contactlab.lcp.solve([["a", "b"], ["c", "d"]], q)
    with pytest.raises(ValueError, match="non-finite"):
        contactlab.lcp.solve(np.array([[np.nan, 0.0], [0.0, 1.0]]), q)


def test_long_calls_release_the_gil():
    import threading
    import time

    model = EXAMPLES / "two-contact" / "config-A.toml"
    phi = np.linspace(-1.5, 1.5, 40_000)
    span = []

    def work():
        t0 = time.perf_counter()
        contactlab.p1.maps(model, phi=phi)
        span.extend([t0, time.perf_counter()])

    t = threading.Thread(target=work)
    stamps = []
    t.start()
    while t.is_alive() and len(stamps) < 5_000_000:
        stamps.append(time.perf_counter())
    t.join()
    # This thread ran Python throughout the middle half of the call: with the GIL held by the
    # call it could not have.
    t0, t1 = span
    lo, hi = t0 + 0.25 * (t1 - t0), t1 - 0.25 * (t1 - t0)
    inside = sum(lo < s < hi for s in stamps)
    assert inside > 100, (inside, t1 - t0)


def test_results_pickle_copy_compare_and_stay_frozen():
    import copy
    import pickle

    model = EXAMPLES / "zeno" / "double-pendulum-pd.toml"
    r = contactlab.zeno.simulate(model, t_max=3)
    assert isinstance(r.t, np.ndarray)
    for twin in (pickle.loads(pickle.dumps(r)), copy.copy(r), copy.deepcopy(r)):
        assert twin == r and twin.to_dict().keys() == r.to_dict().keys()
    other = contactlab.zeno.simulate(model, t_max=2)
    assert other != r
    with pytest.raises(ValueError, match="read-only"):
        r.t[0] = 1.0
    with pytest.raises(AttributeError):
        r.impacts = 3


def test_bad_counts_and_dict_values_raise_value_error():
    b = EXAMPLES / "two-contact" / "config-B.toml"
    for call, name in [
        (lambda: contactlab.p1.classify(b, samples=0), "samples"),
        (lambda: contactlab.p1.maps(b, samples=-5), "samples"),
        (lambda: contactlab.p1.simulate(b, max_events=-1), "max_events"),
        (lambda: contactlab.walker.painleve(EXAMPLES / "walker" / "rimless-wheel.toml", sigma=300), "sigma"),
        (lambda: contactlab.fixture.mu_sweep(EXAMPLES / "fixture" / "disk-mu0.2-0.5.toml", steps=10**9), "steps"),
        (lambda: contactlab.eqset.analyze(EXAMPLES / "eqset" / "rod-two-sliders.toml", grid=2), "grid"),
        (lambda: contactlab.zeno.bound(EXAMPLES / "zeno" / "double-pendulum-pd.toml", -1, 0.1, 0.1), "eps1"),
    ]:
        with pytest.raises(ValueError, match=name):
            call()
    data = tomllib.loads(b.read_text())
    assert contactlab.p1.classify({**data, "mu1": np.float64(data["mu1"])}, samples=101) == contactlab.p1.classify(
        data, samples=101
    )
    with pytest.raises(ValueError, match="mu1: must be a finite number"):
        contactlab.p1.classify({**data, "mu1": float("nan")})
