"""One set of defaults (issue #41): every setting the front ends expose defaults to the library's
value. The CLI's --help is checked against the same table by the Rust test
``the_flags_defaults_are_the_librarys``; here the Python functions."""

import inspect

import contactlab
from contactlab import _core


FRONT_DOORS = {
    "simulate": contactlab.model.simulate,
    "gait": contactlab.model.gait,
    "basin": contactlab.basin,
    "continue": contactlab.continuation,
    "painleve": contactlab.model.painleve,
    "slip": contactlab.model.slip,
    "walker slip": contactlab.walker.slip,
    "walker painleve": contactlab.walker.painleve,
    "equilibrium maps": contactlab.p1.maps,
    "equilibrium classify": contactlab.p1.classify,
    "equilibrium atlas": contactlab.p1.atlas,
    "equilibrium simulate": contactlab.p1.simulate,
    "zeno simulate": contactlab.zeno.simulate,
    "zeno bound": contactlab.zeno.bound,
    "zeno continue": contactlab.zeno.continuation,
    "eqset analyze": contactlab.eqset.analyze,
    "eqset simulate": contactlab.eqset.simulate,
    "fixture mu-sweep": contactlab.fixture.mu_sweep,
    "stance": contactlab.model.stance,
}


def test_the_python_defaults_are_the_librarys():
    defaults = _core.defaults()
    assert set(defaults) == set(FRONT_DOORS)
    checked = 0
    for command, settings in defaults.items():
        params = inspect.signature(FRONT_DOORS[command]).parameters
        for key, want in settings.items():
            assert key in params, f"{command}: no argument {key}"
            assert params[key].default == want, f"{command} {key}: {params[key].default} != {want}"
            checked += 1
    assert checked >= 30


def test_the_library_defaults_are_the_documented_ones():
    # The values a user has been told (README, --help): a change here is a change of behaviour.
    d = _core.defaults()
    assert d["simulate"]["t_max"] == 5.0 and d["continue"]["max_doublings"] == 2
