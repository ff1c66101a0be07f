package import DepotCore

extension Repository {
    /// Starts this repository's mutations for a test fixture that has no service tree of its own to run them in (depotd
    /// runs them in its tree; the server harness in its group): a task of the test's that runs them until the process
    /// ends, idle and holding nothing between calls. Returns the repository, so a fixture reads
    /// `Repository(…).running()`.
    package func running() -> Repository {
        Task { await self.run() }
        return self
    }
}
