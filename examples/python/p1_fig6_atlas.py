"""P1 Fig. 6 through contactlab.sweep: P1's verdict over the centre-of-mass position of
configuration B's body (contacts fixed), on a Dask LocalCluster, drawn with matplotlib.

    python examples/python/p1_fig6_atlas.py [OUT.png] [--cells N]

Writes the figure (default p1_fig6_atlas.png) and prints how many cells each verdict has.
"""

import argparse
from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402

import contactlab  # noqa: E402

# The colours of the CLI's and the report's atlases (colour-blind-safe palette).
COLOURS = {
    "no-equilibrium": "#d7d7d7",
    "ambiguous-unstable": "#e69f00",
    "reverse-chatter-unstable": "#d55e00",
    "stable": "#009e73",
    "undetermined": "#cc79a7",
    "invalid": "#ffffff",
}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("out", nargs="?", default="p1_fig6_atlas.png")
    ap.add_argument("--cells", type=int, default=41, help="cells along com_x (com_z gets 3/4 as many)")
    ap.add_argument("--samples", type=int, default=401, help="samples of phi per cell")
    a = ap.parse_args()
    model = Path(__file__).resolve().parents[1] / "two-contact" / "config-B.toml"
    xs = np.linspace(-0.06, 0.02, a.cells)
    zs = np.linspace(0.08, 0.2, max(2, (3 * a.cells) // 4))
    df = contactlab.sweep(model, {"com_x": xs, "com_z": zs}, samples=a.samples)
    names = list(COLOURS)
    codes = np.array([names.index(v) for v in df["verdict"]]).reshape(len(zs), len(xs))
    fig, ax = plt.subplots(figsize=(8, 5.5))
    cmap = matplotlib.colors.ListedColormap([COLOURS[n] for n in names])
    dx, dz = xs[1] - xs[0], zs[1] - zs[0]
    ax.imshow(codes, origin="lower", cmap=cmap, vmin=-0.5, vmax=len(names) - 0.5, aspect="auto",
              extent=(xs[0] - dx / 2, xs[-1] + dx / 2, zs[0] - dz / 2, zs[-1] + dz / 2), interpolation="nearest")
    present = [n for n in names if (df["verdict"] == n).any()]
    handles = [matplotlib.patches.Patch(color=COLOURS[n], label=n) for n in present]
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.01, 1.0), frameon=True)
    ax.set_xlabel("CoM position downhill of contact 1, com_x [m]")
    ax.set_ylabel("CoM height above the contacts, com_z [m]")
    ax.set_title("P1 Fig. 6: verdict over the CoM position (configuration B)")
    fig.tight_layout()
    fig.savefig(a.out, dpi=120)
    for n in present:
        print(f"{n:<26} {(df['verdict'] == n).sum()}")
    return df


if __name__ == "__main__":
    main()
