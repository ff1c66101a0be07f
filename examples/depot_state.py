import depot  # pip install ./clients/python

# depot.connect() finds the socket as `depotctl socket` does ($DEPOT_SOCKET, depotd's default, the system daemon's).
with depot.connect() as d:
    state = d.state()
    print(state.seq, state.status.value, len(state.items or []))
