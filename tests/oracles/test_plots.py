"""Pictures: ``explain --plot`` and ``ledger --plots`` write PNGs; without matplotlib the
commands say how to install the ``plots`` extra and exit 2.

The PNG tests need matplotlib (the optional extra ``.[plots]``) and are skipped without it.
"""

from __future__ import annotations

import builtins
import json

import numpy as np
import pytest

from oracles.__main__ import main
from oracles.explain import claim_from_corpus, explain_claim

PNG = b"\x89PNG\r\n\x1a\n"


def _needs_matplotlib():
    pytest.importorskip("matplotlib", reason="matplotlib is not installed (optional extra: pip install '.[plots]')")


def _is_png(path) -> bool:
    data = path.read_bytes()
    return data[:8] == PNG and len(data) > 2000


@pytest.mark.parametrize("row,case", [("path.interior_positions", 12), ("track.values", 3),
                                      ("triangle.first_hit", 0), ("distance.prefix_bounds", 12)])
def test_explain_plot_writes_a_png(tmp_path, capsys, row, case):
    _needs_matplotlib()
    out = tmp_path / "img" / f"{row}.png"
    assert main(["explain", "--row", row, "--case", str(case), "--plot", str(out)]) == 0
    assert _is_png(out)
    assert f"wrote {out}" in capsys.readouterr().out


def test_path_sweep_agrees_with_the_explanation():
    # The sweep's value at the claim's u is the explanation's kernel error there (same
    # format, exact truth): the picture shows the numbers the text prints.
    from oracles.plots import path_error_sweep
    from oracles.model import dec, dec_array

    claim = claim_from_corpus("path.interior_positions", 12, 1, 6)
    ex = explain_claim(claim)
    P = dec_array(claim.inputs["controls"], np.float32)
    errs, bounds = path_error_sweep(P, np.array([dec(claim.inputs["u"])]), "f64")
    assert errs.shape == bounds.shape == (1, 3)
    for k, c in enumerate(ex["components"]):
        # ulps at the exact value (the sweep) and at the computed value (the explanation)
        # agree unless the two straddle a power of two: then by a factor of two.
        assert errs[0, k] == pytest.approx(abs(c["traced_ulps"]), rel=1e-9, abs=1e-12) or \
            errs[0, k] == pytest.approx(2 * abs(c["traced_ulps"]), rel=1e-9) or \
            2 * errs[0, k] == pytest.approx(abs(c["traced_ulps"]), rel=1e-9)
        assert bounds[0, k] > errs[0, k]


def test_ledger_plots_writes_one_png_per_measured_row(tmp_path, capsys):
    _needs_matplotlib()
    d = tmp_path / "plots"
    code = main(["ledger", "--family", "track", "--cases", "4", "--out", str(tmp_path / "out"), "--plots", str(d)])
    assert code == 0
    pngs = sorted(p.name for p in d.glob("*.png"))
    assert "track.values.png" in pngs
    assert all(_is_png(d / p) for p in pngs)
    assert json.loads((tmp_path / "out" / "ledger.json").read_text())  # the ledger itself is unchanged


def test_missing_matplotlib_gives_a_clear_message(tmp_path, capsys, monkeypatch):
    real = builtins.__import__

    def no_matplotlib(name, *a, **k):
        if name == "matplotlib" or name.startswith("matplotlib."):
            raise ImportError("No module named 'matplotlib'")
        return real(name, *a, **k)

    monkeypatch.setattr(builtins, "__import__", no_matplotlib)
    assert main(["explain", "--row", "path.interior_positions", "--case", "12",
                 "--plot", str(tmp_path / "x.png")]) == 2
    err = capsys.readouterr().err
    assert "matplotlib is not installed" in err and "pip install '.[plots]'" in err
    assert main(["ledger", "--family", "track", "--cases", "1", "--out", str(tmp_path / "o"),
                 "--plots", str(tmp_path / "p")]) == 2
    assert "matplotlib is not installed" in capsys.readouterr().err
    assert not (tmp_path / "x.png").exists()
