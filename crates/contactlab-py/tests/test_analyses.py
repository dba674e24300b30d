"""Every analysis of P1-P5 from Python against the command line's JSON (and files) on the same
model, and bad options raising ValueError naming the option."""

import csv
import math
import tomllib

import numpy as np
import pytest

import contactlab

from helpers import EXAMPLES, ROOT, cli


def without(d, *keys):
    return {k: v for k, v in d.items() if k not in keys}


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    # (an empty cell is a value the CLI could not compute: NaN here)
    return {k: np.array([float(r[k]) if r[k] != "" else math.nan for r in rows]) for k in rows[0]}


# --- P1 ---------------------------------------------------------------------------------------


def test_p1_modes_match_the_cli():
    model = EXAMPLES / "two-contact" / "config-A.toml"
    r = contactlab.p1.modes(model)
    assert r.to_dict() == cli("equilibrium", "modes", model)
    assert r.analysis["equilibrium"] and len(r.modes) >= 1


def test_p1_maps_at_given_angles(tmp_path):
    model = EXAMPLES / "two-contact" / "config-A.toml"
    # The CLI's sampled maps (maps.csv), evaluated again at its angles in reverse order.
    cli("equilibrium", "maps", model, "--samples", 41, "--out", tmp_path)
    want = read_csv(tmp_path / "maps.csv")
    phi, R, G = contactlab.p1.maps(model, phi=want["phi"][::-1])
    assert np.array_equal(phi, want["phi"][::-1])
    assert np.array_equal(R, want["R"][::-1], equal_nan=True) and np.array_equal(G, want["G"][::-1], equal_nan=True)
    # Independently of the sampling: R at the fixed points that classify refines by bisection
    # returns the same angle, with classify's G there (P1 config A: three fixed points).
    fps = cli("equilibrium", "classify", model)["fixed_points"]
    assert len(fps) == 3
    phi_fp, R_fp, G_fp = contactlab.p1.maps(model, phi=[f["phi"] for f in fps])
    assert np.all(np.abs(R_fp - phi_fp) < 1e-6), (R_fp, phi_fp)
    assert np.allclose(G_fp, [f["G"] for f in fps], rtol=1e-6, atol=0)
    with pytest.raises(ValueError, match="impact angle"):
        contactlab.p1.maps(model, phi=[0.0, 2.0])


def test_p1_simulate_matches_the_cli_json_and_trajectory_files(tmp_path):
    model = EXAMPLES / "two-contact" / "config-A.toml"
    r = contactlab.p1.simulate(model, {"z2": 1e-4}, max_events=300)
    c = cli("equilibrium", "simulate", model, "--perturb", "z2=1e-4", "--max-events", 300, "--out", tmp_path)
    assert without(r.to_dict(), "trajectory", "nonlinear") == without(c, "nonlinear")
    assert without(r.nonlinear, "trajectory") == c["nonlinear"]
    assert r.outcome == "rest"
    for got, name in [(r.trajectory, "trajectory.csv"), (r.nonlinear["trajectory"], "trajectory_nonlinear.csv")]:
        want = read_csv(tmp_path / name)
        assert set(got) == set(want) == {"t", "z1", "z2", "x1", "x2"}
        for k in want:
            # (the CSV holds Rust's shortest round-trip decimal: exact)
            assert np.array_equal(got[k], want[k]), k
    # The string form is the command line's.
    assert contactlab.p1.simulate(model, "z2=1e-4", max_events=300) == r
    with pytest.raises(ValueError, match="perturb: z2: gaps must be >= 0"):
        contactlab.p1.simulate(model, {"z2": -1.0})
    with pytest.raises(ValueError, match="t_max"):
        contactlab.p1.simulate(model, t_max=0.0)


# --- P2 ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("walker", ["rimless-wheel", "compass-biped"])
def test_walker_gait_painleve_and_slip_match_the_cli(walker):
    model = EXAMPLES / "walker" / f"{walker}.toml"
    assert contactlab.walker.gait(model).to_dict() == cli("walker", "gait", model)
    p = contactlab.walker.painleve(model, sigma=-1)
    c = cli("walker", "painleve", model, "--sigma", "-1")
    assert without(p.to_dict(), "theta", "b_negative_grid") == c
    if walker == "compass-biped":
        assert p.b_negative_grid.shape == (len(p.theta), len(p.theta))
        assert int(p.b_negative_grid.sum()) == c["b_negative"]["grid_cells"] > 0
        # Indexed [theta2, theta1]: the ranges of the B < 0 cells along each axis are the CLI's.
        rows, cols = np.nonzero(p.b_negative_grid)
        t1 = [p.theta[cols].min(), p.theta[cols].max()]
        t2 = [p.theta[rows].min(), p.theta[rows].max()]
        assert t1 == c["b_negative"]["theta1_range"] and t2 == c["b_negative"]["theta2_range"]
        assert t1 != t2
    state = [-0.3, 0.643, 0.5] if walker == "rimless-wheel" else [-0.15, 0.3, 0.7, -0.5, 0.2]
    s = contactlab.walker.slip(model, state)
    assert s.to_dict() == cli("walker", "slip", model, "--state", ",".join(map(str, state)))
    with pytest.raises(ValueError, match="state: .* takes"):
        contactlab.walker.slip(model, state[:2])
    with pytest.raises(ValueError, match="sigma"):
        contactlab.walker.painleve(model, sigma=0)


def test_walker_jam_threshold_matches_the_cli():
    model = EXAMPLES / "walker" / "rimless-wheel.toml"
    r = contactlab.walker.slip(model, [-0.3, 0.643, 0.5], jam_threshold=True)
    assert r.to_dict() == cli("walker", "slip", model, "--state", "-0.3,0.643,0.5", "--jam-threshold")
    assert 0 < r.jam_threshold < 5


# --- P3 ---------------------------------------------------------------------------------------


def test_zeno_simulate_matches_the_cli_json_and_trajectory_file(tmp_path):
    model = EXAMPLES / "zeno" / "double-pendulum-pd-e0.5.toml"
    r = contactlab.zeno.simulate(model, t_max=10)
    c = cli("zeno", "simulate", model, "--t-max", 10, "--out", tmp_path)
    arrays = ("t", "q", "v", "constrained", "lambda", "coordinates", "event_times", "event_kinds")
    assert without(r.to_dict(), *arrays) == c
    assert r.zeno_points >= 1 and "zeno" in r.event_kinds
    with open(tmp_path / "trajectory.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == len(r.t) and r.q.shape == (len(r.t), 2)
    assert np.array_equal(r.t, [float(x["t"]) for x in rows])
    assert np.array_equal(r.q[:, 1], [float(x["theta2"]) for x in rows])
    assert list(r.constrained) == [x["constrained"] == "true" for x in rows]
    with pytest.raises(ValueError, match="e: must be a number in"):
        contactlab.zeno.simulate(model, e=1.5)


def test_zeno_orbit_bound_and_continuation_match_the_cli():
    model = EXAMPLES / "zeno" / "double-pendulum-pd.toml"
    assert contactlab.zeno.orbit(model, e=0.5).to_dict() == cli("zeno", "orbit", model, "--e", 0.5)
    b = contactlab.zeno.bound(model, 0.05, 0.05, 0.05, grid=3)
    assert b.to_dict() == cli("zeno", "bound", model, "--eps1", 0.05, "--eps2", 0.05, "--eps3", 0.05, "--grid", 3)
    k = contactlab.zeno.continuation(model, e_max=0.1)
    c = cli("zeno", "continue", model, "--e-max", 0.1)
    assert without(k.to_dict(), "branch") == c
    assert len(k.branch["e"]) == c["points"] and k.branch["e"][-1] == c["e_critical"]
    # No orbit at a large e is a result (exit 0, nothing stale), the same from both front ends.
    none = contactlab.zeno.orbit(model, e=0.99)
    assert none.to_dict() == cli("zeno", "orbit", model, "--e", 0.99)
    assert not none.converged and none.period is None and "never enters a constrained phase" in none.reason
    with pytest.raises(ValueError, match="periodic motion"):
        contactlab.zeno.orbit(EXAMPLES / "zeno" / "bouncing-ball.toml")
    with pytest.raises(ValueError, match="step"):
        contactlab.zeno.continuation(model, step=0.0)


# --- P4 ---------------------------------------------------------------------------------------


def test_fixture_theorem4_and_mu_sweep_match_the_cli():
    model = EXAMPLES / "fixture" / "disk-mu0.2-0.5.toml"
    assert contactlab.fixture.theorem4(model).to_dict() == cli("fixture", "theorem4", model)
    s = contactlab.fixture.mu_sweep(model, max_scale=2, steps=6)
    assert s.to_dict() == cli("fixture", "mu-sweep", model, "--max-scale", 2, "--steps", 6)
    with pytest.raises(ValueError, match="max_scale"):
        contactlab.fixture.mu_sweep(model, max_scale=-1)


# --- scale-out without Python -----------------------------------------------------------------


def test_three_shards_merged_equal_the_unsharded_atlas(tmp_path):
    model = EXAMPLES / "two-contact" / "config-B.toml"
    args = ["equilibrium", "atlas", model, "--vary", "com_x=-0.05:0.0:5", "--vary", "com_z=0.1:0.16:3", "--samples", 101]
    whole = cli(*args, "--out", tmp_path / "whole")
    for k in (1, 2, 3):
        cli(*args, "--shard", f"{k}/3", "--out", tmp_path / f"s{k}")
    merged = cli("merge", *[tmp_path / f"s{k}" / "atlas-shard.json" for k in (3, 1, 2)], "--out", tmp_path / "merged")
    assert merged == whole
    assert (tmp_path / "merged" / "atlas.csv").read_bytes() == (tmp_path / "whole" / "atlas.csv").read_bytes()


def test_monte_carlo_over_loads_on_a_local_cluster_equals_each_classification():
    pytest.importorskip("dask.distributed")
    model = EXAMPLES / "fixture" / "disk-mu0.2-0.5.toml"
    rng = np.random.default_rng(3)
    angle = rng.uniform(0, 2 * math.pi, 12)
    loads = {"load[0]": np.cos(angle), "load[1]": np.sin(angle), "load[2]": rng.normal(scale=0.3, size=12)}
    here = contactlab.sweep(model, cells=loads, client=False)
    spread = contactlab.sweep(model, cells=loads, client=None, chunk_size=5)
    assert here.equals(spread) and len(here) == 12
    data = tomllib.loads(model.read_text())
    for _, row in here.iterrows():
        data["load"] = [row["load[0]"], row["load[1]"], row["load[2]"]]
        c = contactlab.fixture.classify(data)
        assert row["classification"] == c.classification and row["weakly_stable"] == c.weakly_stable
    assert set(here["classification"]) >= {"strongly-unstable"}
    grid = contactlab.sweep(model, vary={"mu_scale": [0.0, 1.0, 4.0]}, client=False, output="xarray")
    assert dict(grid.sizes) == {"mu_scale": 3}
    with pytest.raises(ValueError, match="unknown key"):
        contactlab.sweep(model, cells={"load[7]": [1.0]}, client=False)
    with pytest.raises(ValueError, match="either as a grid"):
        contactlab.sweep(model, client=False)
    with pytest.raises(ValueError, match="kind"):
        contactlab.sweep(EXAMPLES / "zeno" / "bouncing-ball.toml", vary={"e": [0.5]}, client=False)


# --- P5 ---------------------------------------------------------------------------------------


def test_eqset_simulate_matches_the_cli_json_and_trajectory_file(tmp_path):
    model = EXAMPLES / "eqset" / "friction-oscillator.toml"
    r = contactlab.eqset.simulate(model, t_max=2)
    c = cli("eqset", "simulate", model, "--t-max", 2, "--out", tmp_path)
    assert without(r.to_dict(), "t", "q", "q_dot", "V", "coordinate") == c
    want = read_csv(tmp_path / "trajectory.csv")
    assert np.array_equal(r.t, want["t"]) and np.array_equal(r.q, want[r.coordinate])
    assert np.array_equal(r.V, want["V"])
    # Friction takes energy out (step to step the semi-implicit scheme's energy may wobble by
    # O(h^2); it never exceeds the start) and the block comes to rest.
    assert r.V.max() <= r.V[0] and r.V[-1] < 0.1 * r.V[0] and r.at_rest
    with pytest.raises(ValueError, match="h: must be"):
        contactlab.eqset.simulate(model, h=-1.0)


# --- Your own mechanism (kind = "multibody") --------------------------------------------------


def test_mechanism_inspect_and_simulate_match_the_cli(tmp_path):
    model = EXAMPLES / "multibody" / "compass-biped.toml"
    i = contactlab.model.inspect(model, state=[0.1, 1.5, 0.2, -0.3])
    assert i.to_dict() == cli("model", "inspect", model, "--state", "0.1,1.5,0.2,-0.3")
    assert i.check == [] and i.mass_matrix_eigenvalues[0] > 0
    r = contactlab.model.simulate(model, t_max=2)
    c = cli("simulate", model, "--t-max", 2, "--out", tmp_path)
    arrays = ("t", "q", "v", "modes", "kinetic", "potential", "coordinates", "contacts")
    assert without(r.to_dict(), *arrays) == c
    assert r.impacts == 2 and r.q.shape == (len(r.t), 4)
    with open(tmp_path / "trajectory.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    assert np.array_equal(r.q[:, 3], [float(x["swing"]) for x in rows])
    # The same model as a dict: the same answer.
    d = tomllib.loads(model.read_text())
    assert contactlab.model.simulate(d, t_max=2).to_dict()["events"] == r.events
    with pytest.raises(ValueError, match="state: needs 4 numbers"):
        contactlab.model.inspect(model, state=[0.1])
    with pytest.raises(ValueError, match=r"<dict>: body\[0\].mass"):
        contactlab.model.inspect({**d, "body": [{**d["body"][0], "mass": -1}] + d["body"][1:]})
    # One simulate for every mechanism: what a planar one does not take is refused, by name.
    with pytest.raises(ValueError, match="method: moreau applies to robots in 3-D"):
        contactlab.model.simulate(model, t_max=2, method="moreau")
    with pytest.raises(ValueError, match="mu: applies to robots in 3-D"):
        contactlab.model.simulate(d, t_max=2, mu=0.5)
    with pytest.raises(ValueError, match="base: applies to a URDF path"):
        contactlab.model.inspect(d, base="floating")


def test_mechanism_gait_matches_the_cli():
    model = EXAMPLES / "multibody" / "compass-biped.toml"
    g = contactlab.model.gait(model)
    assert g.to_dict() == cli("gait", model)
    assert len(g.gaits) == 1 and abs(g.gaits[0]["period"] - 0.744620868) < 1e-8
    # The same model as a dict: the same answer.
    assert contactlab.model.gait(tomllib.loads(model.read_text())).to_dict() == g.to_dict()
    # From the gait's own post-strike state: Newton's method alone finds it again, as
    # `gait --state` does.
    x = g.gaits[0]["q"] + g.gaits[0]["v"]
    again = contactlab.model.gait(model, state=x)
    assert again.to_dict() == cli("gait", model, "--state", ",".join(map(str, x)))
    assert again.starts == 1 and abs(again.gaits[0]["period"] - g.gaits[0]["period"]) < 1e-9


def test_mechanism_painleve_and_slip_match_the_cli(tmp_path):
    model = EXAMPLES / "multibody" / "rimless-wheel.toml"
    p = contactlab.model.painleve(model, "stance tip", slice=[("wheel.theta", -0.31, 0.31)], points=101)
    c = cli("painleve", model, "--contact", "stance tip", "--slice=wheel.theta=-0.31:0.31", "--points", 101)
    assert p.to_dict() == c
    assert abs(p.mu_min["mu_min"] - 2 * math.sqrt(0.02 + 0.02**2)) < 1e-8  # P2 eq. 33
    (lo, hi), = p.b_negative_intervals
    assert abs(lo - 0.0723063) < 1e-6 and abs(hi - 0.2643685) < 1e-6
    s = contactlab.model.slip(model, "stance tip", state=p.q + [p.v[0] + 0.5, p.v[1], p.v[2]])
    assert s.to_dict() == cli("slip", model, "--contact", "stance tip", "--state", ",".join(map(str, s_state(p))))
    with pytest.raises(ValueError, match="no contact 'hand'"):
        contactlab.model.painleve(model, "hand")
    # The same model as a dict: the same answers.
    d = tomllib.loads(model.read_text())
    pd = contactlab.model.painleve(d, "stance tip", slice=[("wheel.theta", -0.31, 0.31)], points=101)
    assert pd.to_dict() == p.to_dict()
    assert contactlab.model.slip(d, "stance tip", state=s_state(p)).to_dict() == s.to_dict()
    # The jam threshold: the slip speed set on the hub's x (P2's sliding of the whole wheel).
    j = contactlab.model.slip(model, "stance tip", state=s_state(p), jam_threshold=True, along="wheel.x")
    state = ",".join(map(str, s_state(p)))
    c = cli("slip", model, "--contact", "stance tip", "--state", state, "--jam-threshold", "--along", "wheel.x")
    assert j.to_dict() == c and 0 < j.jam_threshold < 5
    with pytest.raises(ValueError, match="along"):
        contactlab.model.slip(model, "stance tip", along="wheel.x")


def test_mechanism_orbit_matches_the_cli():
    model = EXAMPLES / "multibody" / "p3-double-pendulum-pd-e0.5.toml"
    o = contactlab.model.orbit(model, "knee stop")
    assert o.to_dict() == cli("orbit", model, "--constraint", "knee stop")
    assert o.converged and o.zeno and abs(o.period - 6.5226106) < 1e-6
    assert contactlab.model.orbit(tomllib.loads(model.read_text()), "knee stop").to_dict() == o.to_dict()


def s_state(p):
    return p.q + [p.v[0] + 0.5, p.v[1], p.v[2]]


def test_a_urdf_path_is_a_model():
    # A bare URDF is a fixed-base robot in 3-D, as the URDF says; base="planar" reads it as the
    # planar mechanism (Drake's CompassGait.urdf: a planar joint and the hip).
    urdf = EXAMPLES / "multibody" / "drake" / "CompassGait.urdf"
    j = contactlab.model.inspect(urdf)
    assert j.model["coordinates"] == cli("model", "inspect", urdf)["model"]["coordinates"]
    assert len(j.mass_matrix) == len(j.model["velocities"])
    i = contactlab.model.inspect(urdf, state=[0.1, -0.9, 0.2, 0.3], base="planar")
    assert i.model["coordinates"] == ["floating_base.x", "floating_base.y", "floating_base.theta", "hip_pin"]
    assert i.to_dict() == cli("model", "inspect", urdf, "--state", "0.1,-0.9,0.2,0.3", "--base", "planar")
    # Without contacts it swings freely from the state, as the CLI has it.
    r = contactlab.model.simulate(urdf, state=[0.1, -0.9, 0.2, 0.3], t_max=0.5, base="planar")
    arrays = ("t", "q", "v", "modes", "kinetic", "potential", "coordinates", "contacts")
    assert without(r.to_dict(), *arrays) == cli(
        "simulate", urdf, "--state", "0.1,-0.9,0.2,0.3", "--t-max", 0.5, "--base", "planar"
    )
    assert r.impacts == 0 and r.q.shape[1] == 4


def test_a_bare_urdf_walks_only_from_a_scene_or_read_as_a_planar_mechanism():
    # As the CLI decides: a bare URDF is a robot in 3-D to every function; the walking ones say
    # it needs a scene file with a [gait] table, orbit that it takes a planar mechanism, and
    # base="planar" reads it as one (Drake's compass gait, which then lacks its planar [gait]).
    a1 = ROOT / "data" / "robots" / "a1.urdf"
    calls = [
        (lambda: contactlab.model.gait(a1), "needs a scene file with a [gait] table"),
        (lambda: contactlab.basin(a1, {"x": (0.0, 1.0, 3)}, client=False), "needs a scene file with a [gait] table"),
        (lambda: contactlab.continuation(a1, "mu", 1.0), "needs a scene file with a [gait] table"),
        (lambda: contactlab.model.orbit(a1, "x"), "takes a planar mechanism"),
    ]
    for call, said in calls:
        with pytest.raises(ValueError) as e:
            call()
        assert said in str(e.value) and "a1.urdf" in str(e.value), str(e.value)
    compass = EXAMPLES / "multibody" / "drake" / "CompassGait.urdf"
    with pytest.raises(ValueError, match="gait: missing"):
        contactlab.model.gait(compass, base="planar")


def test_continuation_matches_the_cli():
    model = EXAMPLES / "multibody" / "compass-biped.toml"
    c = contactlab.continuation(model, "contact[*].mu", 0.5, max_doublings=0)
    assert c.to_dict() == cli("continue", model, "--param", "contact[*].mu", "--to", 0.5, "--max-doublings", 0)
    (b,) = c.branches
    assert b["end"] == "reached 0.5" and b["points"][-1]["p"] == 0.5
    # The sticking gait does not depend on mu; B < 0 on it for mu above the located point.
    (s,) = b["special"]
    assert s["kind"] == "painleve-onset" and 0.6 < s["p"] < 0.65
    with pytest.raises(ValueError, match="no element named 'hand'"):
        contactlab.continuation(model, "contact[hand].mu", 0.5)


def test_basin_on_dask_matches_the_cli():
    # P2's rimless wheel: a basin over the post-strike spin rate; the boundary between falling
    # back and walking on is the vaulting speed 2 sin 4 deg (tests/basin.rs has the derivation).
    model = EXAMPLES / "multibody" / "rimless-wheel.toml"
    b = contactlab.basin(model, {"wheel.theta_dot": (-0.2, -0.1, 11)}, steps=30, client=None, chunk_size=3)
    ref = cli("basin", model, "--vary", "wheel.theta_dot=-0.2:-0.1:11", "--steps", 30)
    d = b.to_dict()
    assert d["cells"] == ref["cells"] and d["plan"] == ref["plan"]
    assert [tuple(f) for f in d["fractions"]] == [tuple(f) for f in ref["fractions"]]
    walks = [-c["values"][0] for c in d["cells"] if c["outcome"] == {"outcome": "gait", "index": 0}]
    falls = [-c["values"][0] for c in d["cells"] if c["outcome"] == {"outcome": "fell"}]
    assert max(falls) < 2 * math.sin(math.radians(4)) < min(walks)
    # The same cells in one process, in one chunk.
    here = contactlab.basin(model, {"wheel.theta_dot": (-0.2, -0.1, 11)}, steps=30, client=False)
    assert here.to_dict()["cells"] == d["cells"]
    with pytest.raises(ValueError, match="no section coordinate 'wheel.phi'"):
        contactlab.basin(model, {"wheel.phi": (0, 1, 3)}, client=False)
    with pytest.raises(ValueError, match="lo < hi"):
        contactlab.basin(model, {"wheel.theta_dot": (0, -1, 3)}, client=False)


def test_a_3d_basin_in_chunks_matches_the_cli():
    # The 3-D rimless wheel's rolling (unstable at slope 0.1: no gait captures) over its roll
    # rate, for 8 strikes: which starts still roll and which fall, chunked as the CLI is not.
    scene = EXAMPLES / "spatial" / "rimless-wheel.toml"
    b = contactlab.basin(scene, {"wheel.wx": (-2.0, 2.0, 5)}, steps=8, client=False, chunk_size=2)
    ref = cli("basin", scene, "--vary", "wheel.wx=-2:2:5", "--steps", 8)
    d = b.to_dict()
    assert d["cells"] == ref["cells"] and d["plan"] == ref["plan"] and d["plan"]["gaits"] == []
    # The middle cell is the (unstable) gait itself: it repeats, a period-1 orbit no stable
    # gait names; rolled hard sideways the wheel falls.
    assert d["cells"][2]["outcome"] == {"outcome": "period", "index": 1}
    assert d["cells"][0]["outcome"] == {"outcome": "fell"} and d["cells"][4]["outcome"] == {"outcome": "fell"}
    with pytest.raises(ValueError, match="d.wheel.wx"):
        contactlab.basin(scene, {"wheel.x": (0, 1, 3)}, client=False)


def test_a_robot_in_3d_is_inspected_as_the_cli_does():
    xml = ROOT / "data" / "robots" / "mujoco" / "hopper.xml"
    i = contactlab.model.inspect(xml)
    assert i.to_dict() == cli("model", "inspect", xml)
    assert i.model["coordinates"][:3] == ["rootx", "rootz", "rooty"]
    urdf = ROOT / "data" / "robots" / "ur5_robot.urdf"
    j = contactlab.model.inspect(urdf, base="fixed", state=[0.1, -0.5, 0.4, 0.2, 0.3, -0.1])
    assert j.to_dict() == cli("model", "inspect", urdf, "--base", "fixed", "--state", "0.1,-0.5,0.4,0.2,0.3,-0.1")
    assert len(j.mass_matrix) == 6 and j.check["mass_matrix"] < 1e-12


def test_a_robot_in_3d_is_simulated_as_the_cli_does():
    xml = ROOT / "data" / "robots" / "mujoco" / "hopper.xml"
    r = contactlab.model.simulate(xml, t_max=0.3, h=2e-3, method="moreau")
    assert r.to_dict() == cli("simulate", xml, "--t-max", 0.3, "--h", 0.002, "--method", "moreau")
    assert r.end == "completed" and r.coordinates[0] == "rootx"
    e = contactlab.model.simulate(xml, t_max=0.3)
    assert e.to_dict() == cli("simulate", xml, "--t-max", 0.3)
    assert e.method == "event" and [x["kind"] for x in e.events] == ["impact"]
    with pytest.raises(ValueError, match="method"):
        contactlab.model.simulate(xml, method="rk4")


def test_a_3d_gait_is_found_as_the_cli_does():
    scene = EXAMPLES / "spatial" / "rimless-wheel.toml"
    g = contactlab.model.gait(scene)
    assert g.to_dict() == cli("gait", scene)
    assert g.converged and g.coordinates[0] == "d.wheel.wx" and len(g.multipliers) == 5
    with pytest.raises(ValueError, match=r"\[gait\] table"):
        contactlab.model.gait(EXAMPLES / "spatial" / "rimless-wheel.xml")


def test_a_3d_gait_is_continued_as_the_cli_does():
    # The 3-D rimless wheel's rolling, continued in the slope across its Neimark-Sacker point.
    scene = EXAMPLES / "spatial" / "rimless-wheel.toml"
    c = contactlab.continuation(scene, "slope", 0.195, frm=0.18, max_doublings=0)
    assert c.to_dict() == cli("continue", scene, "--param", "slope", "--from", 0.18, "--to", 0.195, "--max-doublings", 0)
    (b,) = c.branches
    (ns,) = b["special"]
    assert ns["kind"] == "neimark-sacker" and 0.18 < ns["p"] < 0.195
    assert not b["points"][0]["stable"] and b["points"][-1]["stable"]
    with pytest.raises(ValueError, match="orbit"):
        contactlab.continuation(scene, "slope", 0.2, orbit="s0")


def test_a_quadruped_s_stance_is_decided_as_the_cli_does():
    scene = EXAMPLES / "spatial" / "a1-standing.toml"
    r = contactlab.model.stance(scene, friction="pyramid", slope_axis=[0, 1, 0])
    assert r.to_dict() == cli("stance", scene, "--friction", "pyramid", "--slope-axis", "0,1,0")
    c = r.classification
    assert c["classification"] == "strongly-stable" and abs(c["critical_mu"] - 0.17632698) < 1e-6
    assert len(r.contacts) == 4 and r.slope_margin["max_tilt"] > 0.2
    with pytest.raises(ValueError, match="joints"):
        contactlab.model.stance(scene, joints="loose")


def test_a_joint_on_its_stop_holds_a_stance_on_springs(tmp_path):
    # A box with a flap resting on its hinge's upper stop: on their springs the stop holds the
    # flap with the torque m g x, as the CLI says; locked, there are no stops in the stance.
    flap = tmp_path / "flap.xml"
    flap.write_text(
        '<mujoco><compiler angle="radian"/><worldbody><geom type="plane" size="9 9 1" friction="1"/>'
        '<body name="box" pos="0 0 0.1"><freejoint/><geom type="box" size="0.2 0.2 0.1" mass="2"/>'
        '<body name="flap" pos="0.2 0 0.1"><joint name="hinge" type="hinge" axis="0 1 0" limited="true" range="-1 0"/>'
        '<geom type="sphere" size="0.02" pos="0.3 0 0" mass="0.5"/></body></body></worldbody></mujoco>'
    )
    r = contactlab.model.stance(flap, joints="springs", friction="pyramid")
    assert r.to_dict() == cli("stance", flap, "--joints", "springs", "--friction", "pyramid")
    (stop,) = r.stops
    assert stop["name"] == "hinge/upper" and abs(stop["force"] - 0.5 * 9.81 * 0.3) < 1e-9
    assert r.classification["weakly_stable"] and r.classification["strongly_stable"]
    assert contactlab.model.stance(flap).stops == []


def test_painleve_in_3d_is_the_cli_s():
    rod = EXAMPLES / "spatial" / "painleve-rod.toml"
    p = contactlab.model.painleve(rod, "end", slice=[("rod_pitch", 0.05, 1.5)], points=61)
    assert p.to_dict() == cli("painleve", rod, "--contact", "end", "--slice=rod_pitch=0.05:1.5", "--points", 61)
    # In the rod's plane the least mu is 4/3 (up to the end sphere's radius); the slip here is
    # 30 degrees out of the plane: 4/3 / cos 30.
    assert abs(p.mu_min_any_direction["mu_min"] - 4 / 3) < 2e-3
    assert abs(p.mu_min["mu_min"] * math.cos(math.radians(30)) - p.mu_min_any_direction["mu_min"]) < 1e-9
    assert p.direction_from == "velocity" and p.at_state["case"] == "inconsistent"
    with pytest.raises(ValueError, match="direction="):
        contactlab.model.painleve(rod, "end", sigma=1)
    with pytest.raises(ValueError, match="tangent plane"):
        contactlab.model.painleve(rod, "end", direction=[0, 0, 1])
    # A slip 45 degrees out of the plane turns toward it and stops.
    state = [0, 0, 0.5646424733950354, 0, 0.6, 0, 2.1292849467900705, 1, 1.6506712298193567, 0, 2, 0]
    s = contactlab.model.slip(rod, "end", state=state)
    assert s.to_dict() == cli("slip", rod, "--contact", "end", "--state", ",".join(map(str, state)))
    assert s.outcome == "stick" and s.turned < -0.5 and s.approach["reading"] == "slip-stopped"
    # Sliding at 6 m/s in the rod's plane it jams: the last stretch's impulse (N s) ends it.
    jam = [0, 0, 0.5646424733950354, 0, 0.6, 0, 7.1292849467900705, 0, 1.6506712298193567, 0, 2, 0]
    r = contactlab.model.slip(rod, "end", state=jam)
    assert r.to_dict() == cli("slip", rod, "--contact", "end", "--state", ",".join(map(str, jam)))
    assert r.outcome == "jam" and r.approach["reading"] == "reached-p1" and 0.007 < r.approach["impulse"] < 0.008
    # The jam threshold along that slip's direction, as the CLI finds it.
    j = contactlab.model.slip(rod, "end", state=state, jam_threshold=True, max_speed=3.0)
    flags = ["--state", ",".join(map(str, state)), "--jam-threshold", "--max-speed", 3.0]
    assert j.to_dict() == cli("slip", rod, "--contact", "end", *flags)
    with pytest.raises(ValueError, match="along: planar models only"):
        contactlab.model.slip(rod, "end", state=state, jam_threshold=True, along="x")


def test_a_robot_s_dynamics_in_a_loop():
    # contactlab.model.Robot: M and the bias straight from numpy, as model inspect gives them.
    urdf = ROOT / "data" / "robots" / "a1.urdf"
    robot = contactlab.model.Robot(urdf, base="floating")
    assert (robot.nq, robot.nv) == (19, 18) and robot.coordinates[6] == "root_joint.qw"
    q = [0.1, -0.2, 0.4, 0.0, 0.0, 0.0, 1.0] + [0.1 * k for k in range(12)]
    v = [0.3 - 0.05 * k for k in range(18)]
    i = contactlab.model.inspect(urdf, base="floating", state=q + v)
    assert np.abs(robot.mass_matrix(np.array(q)) - np.array(i.mass_matrix)).max() < 1e-12
    assert np.abs(robot.bias(np.array(q), np.array(v)) - np.array(i.bias)).max() < 1e-11
    with pytest.raises(ValueError, match="19 finite numbers"):
        robot.mass_matrix(np.zeros(18))
    with pytest.raises(ValueError, match="planar"):
        contactlab.model.Robot(urdf, base="planar")
