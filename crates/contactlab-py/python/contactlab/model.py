"""Your own mechanism (``kind = "multibody"`` files or dicts with the same keys, or a URDF path;
see docs/models.md): its dynamics at a state, the event-driven simulation, its gaits, Painlevé's
paradox and slip outcomes at any contact."""

import os
from typing import Optional, Sequence

from . import _core
from ._results import Model, Result
from ._results import model_text as _model_text

Robot = _core.Robot

# Every default below is the library's (one place: the Rust `Default` impls, as the CLI's).
_D = _core.defaults()


def model_text(model: Model):
    """As ``_results.model_text``; a bare ``.urdf`` path is the model with the scene's defaults
    (gravity 9.81, the plane xz, no contacts), as the command line reads it."""
    if not hasattr(model, "keys"):
        path = os.fspath(model)
        if path.lower().endswith(".urdf"):
            return _model_text({"kind": "multibody", "gravity": 9.81, "urdf": os.path.abspath(path)})
    return _model_text(model)


def _walking(model: Model, base: Optional[str], command: str) -> bool:
    """Whether ``model`` is a 3-D scene for ``command`` (``False``: a planar model), as the
    command line decides: a bare URDF or MJCF path is a robot in 3-D, which walks only from a
    scene file with a ``[gait]`` table (``ValueError`` naming the file), unless ``base="planar"``
    reads a URDF as a planar mechanism."""
    if hasattr(model, "keys"):
        if base is not None:
            raise ValueError("base: applies to a URDF path, not to a dict")
        return False
    return _core.walking_source(os.fspath(model), base, command)


def _source(model: Model):
    """What ``_core.inspect`` and ``_core.simulate`` open: a path (a URDF read with ``base`` as
    the command line reads it), or a dict's ``(name, text, is_json)``."""
    if hasattr(model, "keys"):
        return _model_text(model)
    return os.fspath(model)


def _state(state: Optional[Sequence[float]]):
    return None if state is None else [float(x) for x in state]


def inspect(model: Model, state: Optional[Sequence[float]] = None, t: float = 0.0, base: Optional[str] = None) -> Result:
    """The model at a state (``n`` numbers q, or ``2n`` numbers q then q'; default the model's
    ``[initial]``), as ``contactlab model inspect --json``: ``mass_matrix``,
    ``mass_matrix_eigenvalues``, ``bias`` (h), ``gravity_force``, ``joint_forces``,
    ``velocity_products``, ``free_acceleration``, ``contacts`` (gap, Jacobians, J'q', armed),
    ``energy`` and ``check`` (disagreements with finite differences; empty when all agree).

    A robot in 3-D: an MJCF path (``.xml``, MuJoCo's ``qpos`` then ``qvel``), a URDF path
    (Pinocchio's coordinates) with its root link ``base="fixed"`` (the default) or
    ``"floating"`` (``"planar"``: the planar mechanism), or a 3-D scene file, as
    ``model inspect --base``:
    ``model`` (coordinates, velocities, q0), ``mass_matrix``, ``bias``, ``passive_force``,
    ``contacts`` with the ground planes, energies and ``check``."""
    kind, d = _core.inspect(_source(model), base, _state(state), float(t))
    return Result(kind, d)


def simulate(
    model: Model,
    state: Optional[Sequence[float]] = None,
    t_max: float = _D["simulate"]["t_max"],
    max_events: int = _D["simulate"]["max_events"],
    rtol: float = _D["simulate"]["rtol"],
    per_step: int = _D["simulate"]["per_step"],
    h: float = _D["simulate"]["h"],
    mu: Optional[float] = None,
    restitution: float = _D["simulate"]["restitution"],
    base: Optional[str] = None,
    method: str = _D["simulate"]["method"],
    max_sweeps: int = _D["simulate"]["max_sweeps"],
    max_steps: int = _D["simulate"]["max_steps"],
) -> Result:
    """The event-driven simulation (contact modes, impacts, Zeno completion, walking rules) up
    to ``t_max`` s, as ``contactlab simulate --json``: ``termination``, ``t_end``, ``impacts``,
    ``zeno_points``, ``slip_events``, ``lift_offs``, ``energy`` (start, end), ``events``; and
    the time history as arrays ``t``, ``q``, ``v`` (one row per sample, one column per name in
    ``coordinates``), ``modes``, ``kinetic``, ``potential``.

    A robot in 3-D (an MJCF path, a URDF path unless ``base="planar"``, a 3-D scene file) against the file's ground planes
    (``mu``: one friction coefficient for every pair, default the file's; ``restitution``),
    ``method`` ``"auto"`` (the default: the event driver up to 16 candidate contacts between
    shapes and ground, Moreau–Jean above), ``"event"`` (the event driver, with ``rtol``,
    ``max_events``, ``per_step``, its work bounded by ``max_steps`` integration steps) or
    ``"moreau"`` (Moreau–Jean time-stepping with step ``h``, each step's contact problem given
    at most ``max_sweeps`` Gauss–Seidel sweeps), both holding the joints' limits, as
    ``simulate --json``:
    ``coordinates``, ``velocities``, ``method``, ``t``, ``q``, ``v``, ``energy``, ``contacts``,
    ``end``; ``termination``, ``events`` and ``contact_names`` (event-driven), ``residual_max`` and
    ``unconverged`` (Moreau–Jean)."""
    kind, d, arrays = _core.simulate(
        _source(model),
        base,
        _state(state),
        float(t_max),
        float(h),
        None if mu is None else float(mu),
        float(restitution),
        str(method),
        float(rtol),
        int(max_events),
        int(per_step),
        int(max_sweeps),
        int(max_steps),
    )
    if arrays is not None:
        d = dict(d)
        d.update(arrays)
    return Result(kind, d)


def gait(
    model: Model,
    rtol: Optional[float] = None,
    base: Optional[str] = None,
    state: Optional[Sequence[float]] = None,
) -> Result:
    """Every gait of the model (a ``[gait]`` table names the striking contact), found without a
    guess, as ``contactlab gait --json``: ``gaits`` (each with ``period``, ``q``, ``v``,
    ``multipliers``, ``stable``, ``mu_stick``, ``impulse_ratio``, ``step_length``), ``starts``,
    ``settled``, ``reason`` and ``needs_mu`` (the friction a sticking gait needs, when none
    exists at the model's). With ``state`` (a post-strike ``q`` then ``q'``): the gait Newton's
    method reaches from it, or none with the ``reason``.

    A 3-D scene file (or an MJCF path) with a ``[gait]`` table (``translation``, ``symmetry``,
    ``settle``): the gait Newton's method finds on the configuration manifold from where the
    passive motion settles (from ``[initial]``, or ``state``: ``q``, or ``q`` then ``v``), as
    ``gait --json`` on it: ``converged``, ``reason``,
    ``coordinates`` (``d.NAME`` tangent displacements, ``NAME`` velocities), ``y``,
    ``period``, ``multipliers``, ``max_modulus``, ``stable``, ``neutral`` (multipliers at 1),
    ``stable_but_neutral``, ``derivatives``, ``q``, ``v``. A bare URDF or MJCF path is a robot in
    3-D and has no ``[gait]`` table (``ValueError``); ``base="planar"`` reads a URDF as a planar
    mechanism. ``rtol``: the integration tolerance (default: 1e-10 planar, 1e-12 in 3-D)."""
    s = None if state is None else [float(x) for x in state]
    kind, d = _core.gait(_source(model), base, None if rtol is None else float(rtol), s)
    return Result(kind, d)


def painleve(
    model: Model,
    contact: str,
    state: Optional[Sequence[float]] = None,
    mu: Optional[float] = None,
    sigma: Optional[int] = None,
    slice: Sequence[tuple] = (),
    points: int = _D["painleve"]["points"],
    slipping: Optional[Sequence[str]] = None,
    held: Optional[Sequence[str]] = None,
    direction: Optional[Sequence[float]] = None,
    base: Optional[str] = None,
) -> Result:
    """Painlevé's paradox at ``contact`` (P2, Section 2), as ``contactlab painleve --json``:
    ``at_state`` (``A``, ``B`` and the ``case`` of Table 2.1), ``mu_min`` over ``slice`` (one or
    two ``(coordinate, lo, hi)``; the other coordinates stay at the state), where ``B < 0``
    (``b_negative_intervals`` or ``b_negative_grid``), and ``several``: the LCP of several
    slipping contacts (``verdict``, ``p_matrix``, ``solutions``). ``held`` names constraints held
    closed (default: every joint limit closed at the state, e.g. a locked knee).

    A robot in 3-D (a scene file, an MJCF path, a URDF path with ``base``): the slip
    ``direction`` is a world vector projected onto the contact's tangent plane (default: the
    slip velocity's, else the direction of least B); the answer adds ``over_directions`` (``d``,
    ``c``, ``mu_min`` over every direction, ``least_b_direction``, ``paradox_arc``), and
    ``mu_min_any_direction`` and the ``..._any_direction`` regions over the slice; ``held``
    names contacts held sticking (default: those touching at rest), ``slipping`` those slipping
    with it."""
    sl = [(str(c), float(lo), float(hi)) for c, lo, hi in slice]
    sp = None if slipping is None else [str(s) for s in slipping]
    hd = None if held is None else [str(h) for h in held]
    sg = None if sigma is None else int(sigma)
    m = None if mu is None else float(mu)
    dr = None if direction is None else [float(x) for x in direction]
    kind, d = _core.painleve(_source(model), base, str(contact), _state(state), m, sg, dr, sl, int(points), sp, hd)
    return Result(kind, d)


def slip(
    model: Model,
    contact: str,
    state: Optional[Sequence[float]] = None,
    jam_threshold: bool = False,
    along: Optional[str] = None,
    max_speed: float = _D["slip"]["max_speed"],
    base: Optional[str] = None,
) -> Result:
    """How a slip of ``contact`` that starts at ``state`` (q then q') ends, as ``contactlab slip
    --json``: ``outcome`` (stick, reversal, separation, jam, corner, impact, ...), ``t_end`` (s),
    ``fn_max``, ``state``, ``A``, ``B`` and the ``approach`` evidence at P2's corner. With
    ``jam_threshold=True`` instead ``jam_threshold``: the smallest initial slip speed of the
    contact (m/s, up to ``max_speed``) that jams, set on the coordinate ``along`` (a translation
    along the contact's line) or by default along the least kinetic-energy velocity change that
    slides the contact, as ``contactlab slip --jam-threshold --json``.

    A robot in 3-D (a scene file, an MJCF path, a URDF path with ``base``): the slip's
    direction turns; the answer adds ``direction_start``, ``direction_end``, ``turned`` (rad)
    and after a reversal ``restart_direction`` (world vectors). Its ``jam_threshold`` tries
    starts along the state's slip direction (no ``along``)."""
    a = None if along is None else str(along)
    kind, d = _core.slip(_source(model), base, str(contact), _state(state), bool(jam_threshold), a, float(max_speed))
    return Result(kind, d)


def orbit(
    model: Model, constraint: str, state: Optional[Sequence[float]] = None, base: Optional[str] = None
) -> Result:
    """P3's periodic orbit through the constrained phases of ``constraint`` (a joint limit or
    contact), reached from ``state`` (default the model's ``[initial]``), as ``contactlab orbit
    --json``: ``converged``, ``zeno``, ``period``, ``fixed_point``, ``multipliers``, ``gamma``,
    ``stable``, ``constrained_duration``, ``impacts_per_cycle``. Planar mechanisms only (a URDF
    path with ``base="planar"``)."""
    return Result("ConstraintOrbit", _core.orbit(_source(model), base, str(constraint), _state(state)))


def stance(
    model: Model,
    state: Optional[Sequence[float]] = None,
    base: Optional[str] = None,
    joints: str = _D["stance"]["joints"],
    friction: str = _D["stance"]["friction"],
    touch: float = _D["stance"]["touch"],
    slope_axis: Optional[Sequence[float]] = None,
    contacts: Optional[Sequence[str]] = None,
) -> Result:
    """A robot's stance stability in 3-D (a scene file, an MJCF path, a URDF path with ``base``)
    at rest at ``state`` (its configuration; default the file's), as ``contactlab stance
    --json``: P4's weak, strong and frictionless stability on the contacts touching the ground,
    the joints ``"locked"`` or on their ``"springs"``, under the ``"coulomb"`` or ``"pyramid"``
    law: ``classification`` (verdicts, certificates, proofs, ``critical_mu``), ``contacts``,
    ``stops`` (on their springs, the joints held at a stop of their range, with the witness's
    torque), ``velocities``, ``load`` and, with ``slope_axis``, ``slope_margin`` (the largest tilt of
    gravity about that world axis, each way, keeping weak stability). ``contacts`` names the
    links that may touch the ground (default: a scene's ``contacts``, else every shape)."""
    path = os.fspath(model)
    axis = None if slope_axis is None else [float(x) for x in slope_axis]
    return Result(
        "Stance",
        _core.stance(
            path,
            _state(state),
            base,
            str(joints),
            str(friction),
            float(touch),
            axis,
            None if contacts is None else [str(c) for c in contacts],
        ),
    )
