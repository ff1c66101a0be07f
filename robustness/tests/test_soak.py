"""The soak's arithmetic and plot: a fitted slope that finds a leak and does not invent one, an SVG that parses, and
only faults that leave depotd running."""

from __future__ import annotations

import random
import xml.etree.ElementTree as ElementTree

import pytest

from depot_robustness.linearizability import Verdict
from depot_robustness.run import RunSettings
from depot_robustness.soak import (
    RoundVerdict,
    Sample,
    SoakReport,
    SoakSettings,
    plot,
    run_soak,
    slope_percent_per_hour,
)
from depot_robustness.watch import WatchVerdict


def test_a_flat_series_has_no_slope_and_a_leak_has_one() -> None:
    flat = [(float(t), 100.0) for t in range(0, 7200, 5)]
    assert slope_percent_per_hour(flat) == 0
    # 100 MiB growing by 1 MiB an hour: 1 % of its mean (about 100.5) an hour.
    leaking = [(float(t), 100 + t / 3600) for t in range(0, 7200, 5)]
    assert slope_percent_per_hour(leaking) == pytest.approx(100 / 101, rel=1e-3)
    # Noise around a flat line fits close to zero; the same noise on a leak still shows the leak.
    rng = random.Random(3)
    noisy = [(t, v + rng.uniform(-5, 5)) for t, v in flat]
    assert abs(slope_percent_per_hour(noisy)) < 0.5
    noisy_leak = [(t, v + rng.uniform(-5, 5) + t / 360) for t, v in flat]
    assert slope_percent_per_hour(noisy_leak) > 5
    assert slope_percent_per_hour([(0.0, 1.0)]) == 0


def report(samples: list[Sample], ok: bool = True) -> SoakReport:
    watch = WatchVerdict(1, 1, 1, [] if ok else ["seq 3 after seq 5"])
    verdict = RoundVerdict(1, watch, Verdict(True, False, 1, 1), [])
    return SoakReport(7, 600, [verdict], samples, warmup=60)


def test_the_plot_is_an_svg_with_a_line_and_a_fit_per_measure() -> None:
    samples = [Sample(float(t), 60_000 + t, 20 + t % 3, 16) for t in range(0, 600, 5)]
    svg = ElementTree.fromstring(plot(report(samples)))
    namespace = "{http://www.w3.org/2000/svg}"
    assert len(svg.findall(f"{namespace}polyline")) == 3
    assert len(svg.findall(f"{namespace}line")) == 3
    titles = [text.text or "" for text in svg.findall(f"{namespace}text")]
    assert any(title.startswith("resident memory (MiB): slope +") for title in titles)


def test_the_report_fails_on_a_violated_round_and_names_it() -> None:
    samples = [Sample(float(t), 60_000, 20, 16) for t in range(0, 600, 5)]
    assert report(samples).ok
    broken = report(samples, ok=False)
    assert not broken.ok
    assert "! round 1: seq 3 after seq 5" in broken.text()


def test_a_soak_refuses_faults_that_restart_depotd() -> None:
    settings = SoakSettings(RunSettings("/nonexistent/depotd", 60, faults=["freeze", "kill"]))
    with pytest.raises(ValueError, match="not kill"):
        run_soak(settings)
