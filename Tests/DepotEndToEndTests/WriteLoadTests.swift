import Testing

/// The write tests that load the machine most — hundreds of writes from several clients, 200 kills, power cuts at
/// every point, fleets on PostgreSQL — one suite at a time. Run at once, on two cores beside the rest of the suite,
/// they starved the in-process server tests past their one-minute safety nets (a thousand garbage lines, answered
/// in a second alone, timed out).
@Suite("Writes under load, one suite at a time", .serialized)
enum WriteLoadTests {}
