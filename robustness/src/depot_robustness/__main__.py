"""python3 -m depot_robustness --depotd PATH [--source file|fleet] [--seconds S] [--clients N] [--faults kill,freeze]
[--seed N]; --power-cuts N; --soak [--round S] [--samples CSV] [--svg SVG]"""

from __future__ import annotations

import argparse
import sys

from .fleet import run_fleet
from .powerloss import run_power_loss
from .run import RunSettings, run_file
from .soak import SoakSettings, run_soak
from .web import run_http


def main() -> int:
    parser = argparse.ArgumentParser(prog="robustness", description=__doc__)
    parser.add_argument("--depotd", required=True)
    parser.add_argument(
        "--source",
        choices=["file", "fleet", "http"],
        default="file",
        help="a file, three daemons on one PostgreSQL table, or an HTTP API of the run's own that changes by itself",
    )
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--clients", type=int, default=50)
    parser.add_argument(
        "--faults",
        default="kill,freeze",
        help="comma-separated: kill, freeze; a file's eio, full, power; a fleet's partition, pg-restart, pg-hang, "
        "pg-slow; an HTTP API's http-hang, http-fail, http-slow, http-reset, http-restart ('' for none)",
    )
    parser.add_argument("--interval", type=float, default=3, help="seconds between faults, on average")
    parser.add_argument("--seed", type=int)
    parser.add_argument("--slow-watchers", type=float, default=0.2, help="the share of watchers that lag (0 to 1)")
    parser.add_argument("--history", help="save the recorded history here (JSON lines)")
    parser.add_argument("--keep", action="store_true", help="keep the run's directory (depotd's log, its file)")
    parser.add_argument(
        "--power-cuts", type=int, help="instead of the traffic: this many power cuts during writes (power-cut FS)"
    )
    parser.add_argument(
        "--soak",
        action="store_true",
        help="one depotd for --seconds in rounds, faults that leave it running (freeze, eio, full), sampled all along",
    )
    parser.add_argument("--round", type=float, default=60, help="a soak's round: its history checked on its own")
    parser.add_argument("--samples", help="a soak's samples (CSV: seconds, RSS KiB, open files, threads)")
    parser.add_argument("--svg", help="a soak's samples plotted over time, with their fitted trends")
    arguments = parser.parse_args()
    if arguments.power_cuts is not None:
        loss = run_power_loss(arguments.depotd, arguments.power_cuts, arguments.seed, arguments.keep, arguments.history)
        print(loss.text())
        return 0 if loss.ok else 1
    faults = [kind for kind in arguments.faults.split(",") if kind]
    settings = RunSettings(
        arguments.depotd,
        arguments.seconds,
        arguments.clients,
        faults,
        arguments.interval,
        arguments.seed,
        arguments.history,
        arguments.keep,
        arguments.slow_watchers,
    )
    if arguments.soak:
        soak = run_soak(SoakSettings(settings, arguments.round, samples_path=arguments.samples, svg_path=arguments.svg))
        print(soak.text())
        return 0 if soak.ok else 1
    runs = {"file": run_file, "fleet": run_fleet, "http": run_http}
    report = runs[arguments.source](settings)
    print(report.text())
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())
