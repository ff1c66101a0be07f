#!/usr/bin/env python3
"""One line for a status bar (i3blocks, waybar, tmux), reprinted whenever the collection changes."""

import depot

with depot.connect() as d:
    for state in d.watch(follow=True):  # resumes after a restart or a suspend
        checked = f" · fetched {state.fetched_at:%H:%M}" if state.fetched_at else ""
        stale = f" · stale ({state.stale_reason})" if state.stale else ""
        print(f"{state.status.value} · {state.count or 0} items{checked}{stale}", flush=True)
